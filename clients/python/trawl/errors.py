"""Typed errors: one class per kind of answer a caller handles differently (as the TS SDK)."""
from __future__ import annotations

from typing import Any, Optional


class TrawlError(Exception):
    """Any error of the client. ``code`` is the API's code (or the client's own)."""

    def __init__(self, message: str, *, code: str, status: Optional[int] = None,
                 request_id: Optional[str] = None, retry_after: Optional[float] = None,
                 detail: Optional[str] = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.request_id = request_id
        self.retry_after = retry_after
        self.detail = detail


class AuthenticationError(TrawlError):
    """401: no key, or a wrong or revoked one."""


class InvalidRequestError(TrawlError):
    """400 and other 4xx refusals (VALIDATION_ERROR, INVALID_URL, URL_NOT_ALLOWED, ...)."""


class NotFoundError(TrawlError):
    """404: no such job for this key."""


class ConflictError(TrawlError):
    """409: e.g. cancelling a job that already finished."""


class RateLimitError(TrawlError):
    """429 RATE_LIMITED: ``retry_after`` seconds."""


class QuotaExceededError(TrawlError):
    """429 QUOTA_EXCEEDED: the month's pages are used up."""


class ServerError(TrawlError):
    """5xx."""


class ConnectionError(TrawlError):  # noqa: A001 - the TS SDK's name
    """No answer: CONNECTION_REFUSED (nothing listens), CONNECTION_ERROR, REQUEST_TIMEOUT."""


class WaitTimeoutError(TrawlError):
    """The client stopped waiting for a job; the job goes on."""


class WebhookVerificationError(TrawlError):
    """A webhook's signature or timestamp did not verify."""


class JobFailedError(TrawlError):
    """A job ended FAILED: ``code`` is the job's (PAGE_TIMEOUT, ...), ``job`` its last view."""

    def __init__(self, message: str, job: Any, code: str) -> None:
        super().__init__(message, code=code)
        self.job = job


def error_from_response(status: int, headers: Any, body: Any) -> TrawlError:
    """The error for a non-2xx answer, from its RFC 7807 body (or whatever came instead)."""
    problem = body if isinstance(body, dict) else {}
    code = problem.get("code") if isinstance(problem.get("code"), str) else f"HTTP_{status}"
    detail = problem.get("detail") if isinstance(problem.get("detail"), str) else (
        body[:500] if isinstance(body, str) and body else None)
    request_id = problem.get("requestId") if isinstance(problem.get("requestId"), str) else headers.get("x-request-id")
    retry_after = _retry_after(headers.get("retry-after"))
    title = problem.get("title") if isinstance(problem.get("title"), str) else f"HTTP {status}"
    message = f"{code}: {detail or title}" + (f" (request {request_id})" if request_id else "")
    kw = dict(code=code, status=status, request_id=request_id, retry_after=retry_after, detail=detail)
    if status == 401:
        return AuthenticationError(message, **kw)
    if status == 404:
        return NotFoundError(message, **kw)
    if status == 409:
        return ConflictError(message, **kw)
    if status == 429:
        return QuotaExceededError(message, **kw) if code == "QUOTA_EXCEEDED" else RateLimitError(message, **kw)
    if status >= 500:
        return ServerError(message, **kw)
    return InvalidRequestError(message, **kw)


def _retry_after(value: Optional[str]) -> Optional[float]:
    if value is None or not value.strip():
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        from email.utils import parsedate_to_datetime
        import time
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None
