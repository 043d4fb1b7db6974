"""A running crawl or batch: look at it, cancel it, iterate over its pages as they finish,
wait for it. Waiting is long-polling (``waitMs``), so a handle costs one request per minute
when nobody asks for progress."""
from __future__ import annotations

import time
import urllib.parse
from typing import Callable, Dict, Iterator, List, Optional, Set

from .errors import ConflictError, JobFailedError, WaitTimeoutError
from .transport import Transport
from .types import MultiPageJob, Page

MAX_WAIT_MS = 60_000
TERMINAL = {"COMPLETED", "FAILED", "CANCELLED"}
Progress = Callable[[MultiPageJob], None]


def _cursor(next_url: Optional[str]) -> Optional[str]:
    if not next_url:
        return None
    values = urllib.parse.parse_qs(urllib.parse.urlparse(next_url).query).get("cursor")
    return values[0] if values else None


class _Job:
    kind = ""
    _path = ""

    def __init__(self, transport: Transport, job_id: str) -> None:
        self._transport = transport
        self.id = job_id

    def status(self, *, wait_ms: Optional[int] = None, cursor: Optional[str] = None) -> MultiPageJob:
        """The job now (with ``wait_ms``: once it has finished, or after that long)."""
        wait = None if wait_ms is None else max(0, min(MAX_WAIT_MS, int(wait_ms)))
        _, body = self._transport.request("GET", f"{self._path}/{urllib.parse.quote(self.id, safe='')}",
                                          query={"waitMs": wait, "cursor": cursor}, hold_s=(wait or 0) / 1000)
        return body

    def cancel(self) -> MultiPageJob:
        """Cancels the job; a job that already finished is left as it is and returned."""
        try:
            _, body = self._transport.request("DELETE", f"{self._path}/{urllib.parse.quote(self.id, safe='')}")
            return body
        except ConflictError:
            return self.status()

    def wait(self, *, timeout_s: Optional[float] = None, on_progress: Optional[Progress] = None,
             progress_interval_s: Optional[float] = None) -> MultiPageJob:
        """Waits for the end and returns the final view (the first part of its pages)."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            step = self._step_ms(on_progress, progress_interval_s, deadline)
            view = self.status(wait_ms=step)
            if on_progress:
                on_progress(view)
            if view["status"] in TERMINAL:
                return view

    def done(self, **wait_options: object) -> MultiPageJob:
        """Waits for the end and returns the final view with every page (all ``next`` parts).
        Raises JobFailedError when the job FAILED."""
        view = self.wait(**wait_options)  # type: ignore[arg-type]
        data: List[Page] = list(view.get("data", []))
        cursor = _cursor(view.get("next"))
        while cursor is not None:
            part = self.status(cursor=cursor)
            data.extend(part.get("data", []))
            cursor = _cursor(part.get("next"))
        full: MultiPageJob = {**view, "data": data}  # type: ignore[typeddict-item]
        full.pop("next", None)
        if full["status"] == "FAILED":
            message = full.get("error", {}).get("message", "unknown error")
            raise JobFailedError(f"{self.kind} {self.id} failed: {message}", full, "JOB_FAILED")
        return full

    def __iter__(self) -> Iterator[Page]:
        return self.pages()

    def pages(self, **options: object) -> Iterator[Page]:
        raise NotImplementedError

    def _step_ms(self, on_progress: Optional[Progress], interval_s: Optional[float], deadline: Optional[float]) -> int:
        if deadline is not None and time.monotonic() >= deadline:
            raise WaitTimeoutError(f"gave up waiting for {self.kind} {self.id}", code="WAIT_TIMEOUT")
        step = MAX_WAIT_MS if on_progress is None and interval_s is None else int(1000 * (interval_s or self._transport.progress_interval_s()))
        if deadline is not None:
            step = min(step, max(0, int(1000 * (deadline - time.monotonic()))))
        return min(step, MAX_WAIT_MS)


class CrawlJob(_Job):
    """A crawl. Iterating yields its pages as they finish, in requested order, each once: a
    running crawl's GET serves the pages done so far with a ``next`` cursor."""
    kind = "crawl"
    _path = "/api/v1/crawl"

    def pages(self, *, timeout_s: Optional[float] = None, on_progress: Optional[Progress] = None,  # type: ignore[override]
              progress_interval_s: Optional[float] = None) -> Iterator[Page]:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        cursor: Optional[str] = None
        progressed = True
        while True:
            step = 0 if progressed else self._step_ms(on_progress, progress_interval_s or self._transport.progress_interval_s(), deadline)
            asked = time.monotonic()
            view = self.status(wait_ms=step, cursor=cursor)
            if on_progress:
                on_progress(view)
            yield from view.get("data", [])
            nxt = _cursor(view.get("next"))
            ended = view["status"] in TERMINAL
            if ended and nxt is None:
                return
            progressed = ended or bool(view.get("data"))
            cursor = nxt if nxt is not None else cursor
            if not progressed and time.monotonic() - asked < step / 2000:
                time.sleep(min(1.0, step / 1000))  # answered early, nothing new: do not spin


class BatchJob(_Job):
    """A batch scrape. Iterating yields each page as soon as it is COMPLETED or FAILED."""
    kind = "batch"
    _path = "/api/v1/batch/scrape"

    def __init__(self, transport: Transport, job_id: str, invalid_urls: Optional[List[str]] = None) -> None:
        super().__init__(transport, job_id)
        self.invalid_urls = invalid_urls or []

    def pages(self, *, timeout_s: Optional[float] = None, on_progress: Optional[Progress] = None,  # type: ignore[override]
              progress_interval_s: Optional[float] = None) -> Iterator[Page]:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        seen: Set[int] = set()
        while True:
            view = self.status(wait_ms=self._step_ms(on_progress, progress_interval_s or self._transport.progress_interval_s(), deadline))
            if on_progress:
                on_progress(view)
            if view["status"] in TERMINAL:
                break
            for i, page in enumerate(view.get("data", [])):
                if i not in seen and page.get("status") in ("COMPLETED", "FAILED"):
                    seen.add(i)
                    yield page
        offset = 0
        part: Optional[MultiPageJob] = view
        while part is not None:
            for i, page in enumerate(part.get("data", [])):
                if offset + i not in seen:
                    seen.add(offset + i)
                    yield page
            offset += len(part.get("data", []))
            cursor = _cursor(part.get("next"))
            part = self.status(cursor=cursor) if cursor is not None else None


JOB_CLASSES: Dict[str, type] = {"crawl": CrawlJob, "batch": BatchJob}
