"""HTTP for the client (urllib only): JSON in and out with the API key, typed errors, and the
retries a well-behaved client makes. A 429 RATE_LIMITED waits its Retry-After; a 503 or a
lost connection backs off exponentially (a lost connection only for requests that are safe
to repeat); a refused connection is retried ``max_connect_retries`` times."""
from __future__ import annotations

import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Mapping, Optional, Tuple

from .errors import ConnectionError, RateLimitError, ServerError, TrawlError, error_from_response

MAX_RETRY_AFTER_S = 65.0


class Transport:
    def __init__(self, api_url: str, api_key: str, *, max_retries: int = 8, max_connect_retries: Optional[int] = None,
                 request_timeout_s: float = 30.0, user_agent: str = "trawl-python/0.1.0") -> None:
        self.base = api_url.rstrip("/")
        self.api_key = api_key
        self.max_retries = max_retries
        self.max_connect_retries = max_retries if max_connect_retries is None else max_connect_retries
        self.request_timeout_s = request_timeout_s
        self.user_agent = user_agent
        self.rate_limit: Optional[int] = None

    def request(self, method: str, path: str, *, query: Optional[Mapping[str, Any]] = None, body: Any = None,
                hold_s: float = 0.0) -> Tuple[int, Any]:
        attempt = 0
        while True:
            try:
                return self._once(method, path, query, body, hold_s)
            except TrawlError as error:
                delay = self._retry_delay_s(error, method, attempt)
                limit = min(self.max_retries, self.max_connect_retries) if error.code == "CONNECTION_REFUSED" else self.max_retries
                if delay is None or attempt >= limit:
                    raise
                time.sleep(delay)
                attempt += 1

    def _retry_delay_s(self, error: TrawlError, method: str, attempt: int) -> Optional[float]:
        if isinstance(error, RateLimitError):
            wait = error.retry_after if error.retry_after is not None else 1.0
            return None if wait > MAX_RETRY_AFTER_S else wait + random.random() * 0.25
        backoff = min(8.0, 0.5 * 2 ** attempt) * (0.75 + random.random() * 0.5)
        if isinstance(error, ServerError) and (error.status == 503 or (method != "POST" and error.status in (502, 504))):
            return error.retry_after if error.retry_after is not None else backoff
        if isinstance(error, ConnectionError) and method != "POST":
            return backoff
        return None

    def _once(self, method: str, path: str, query: Optional[Mapping[str, Any]], body: Any, hold_s: float) -> Tuple[int, Any]:
        url = self.base + path
        params = {k: _query_value(v) for k, v in (query or {}).items() if v is not None}
        if params:
            url += "?" + urllib.parse.urlencode(params)
        headers: Dict[str, str] = {"authorization": f"Bearer {self.api_key}", "accept": "application/json",
                                   "user-agent": self.user_agent}
        data = None
        if body is not None:
            headers["content-type"] = "application/json"
            data = json.dumps(body).encode("utf-8")
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.request_timeout_s + hold_s) as res:
                self._note_rate_limit(res.headers)
                return res.status, _parse(res.read())
        except urllib.error.HTTPError as err:
            self._note_rate_limit(err.headers)
            raise error_from_response(err.code, err.headers, _parse(err.read())) from None
        except urllib.error.URLError as err:
            refused = isinstance(err.reason, (ConnectionRefusedError, socket.gaierror))
            timed_out = isinstance(err.reason, (socket.timeout, TimeoutError))
            code = "REQUEST_TIMEOUT" if timed_out else "CONNECTION_REFUSED" if refused else "CONNECTION_ERROR"
            raise ConnectionError(f"{method} {path} failed: {err.reason}", code=code) from None
        except (socket.timeout, TimeoutError):
            raise ConnectionError(f"{method} {path} timed out", code="REQUEST_TIMEOUT") from None
        except (ConnectionResetError, BrokenPipeError) as err:
            raise ConnectionError(f"{method} {path} failed: {err}", code="CONNECTION_ERROR") from None

    def _note_rate_limit(self, headers: Any) -> None:
        try:
            limit = int(headers.get("x-ratelimit-limit") or 0)
        except ValueError:
            return
        if limit:
            self.rate_limit = limit

    def progress_interval_s(self, share: float = 0.2) -> float:
        """How often to look at a running job: a fifth of the key's requests per minute, at least every second."""
        if not self.rate_limit:
            return 5.0
        return min(60.0, max(1.0, 60.0 / (self.rate_limit * share)))


def _query_value(v: Any) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _parse(raw: bytes) -> Any:
    text = raw.decode("utf-8", errors="replace")
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text
