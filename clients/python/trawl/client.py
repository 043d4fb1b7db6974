"""The Trawl client. Create it with an API key (or TRAWL_API_KEY / TRAWL_API_URL in the
environment) and call scrape, crawl, batch_scrape, map, jobs, events and key."""
from __future__ import annotations

import os
import time
import urllib.parse
from typing import Any, Dict, Iterator, List, Literal, Optional, cast

from .errors import JobFailedError, NotFoundError, WaitTimeoutError
from .jobs import MAX_WAIT_MS, BatchJob, CrawlJob
from .transport import Transport
from .types import KeyStanding, MapResult, ScrapeJob

DEFAULT_API_URL = "http://localhost:3000"
SCRAPE_TIMEOUT_S = 300.0
JobKind = Literal["scrape", "crawl", "batch"]
_LIST_PATHS = {"scrape": "/api/v1/scrape", "crawl": "/api/v1/crawl", "batch": "/api/v1/batch/scrape"}
_EVENT_PATHS = {"scrape": "/api/v1/scrape/{}/events", "crawl": "/api/v1/crawl/{}/events",
                "batch": "/api/v1/batch/scrape/{}/events", "map": "/api/v1/map/{}/events"}


class Trawl:
    def __init__(self, api_key: Optional[str] = None, api_url: Optional[str] = None, *, max_retries: int = 8,
                 max_connect_retries: Optional[int] = None, request_timeout_s: float = 30.0) -> None:
        key = api_key or os.environ.get("TRAWL_API_KEY")
        if not key:
            raise TypeError("Trawl needs an API key: pass api_key= or set TRAWL_API_KEY")
        self.transport = Transport(api_url or os.environ.get("TRAWL_API_URL") or DEFAULT_API_URL, key,
                                   max_retries=max_retries, max_connect_retries=max_connect_retries,
                                   request_timeout_s=request_timeout_s)

    # -- one page ---------------------------------------------------------------------
    def scrape(self, url: str, *, wait: bool = True, timeout_s: float = SCRAPE_TIMEOUT_S, **options: Any) -> ScrapeJob:
        """Scrapes one page and waits for it (long-poll); raises JobFailedError when the page failed.
        ``options`` are the API's fields (formats=[...], onlyMainContent=..., ...)."""
        body: Dict[str, Any] = {"url": url, **options}
        if not wait:
            return cast(ScrapeJob, self.transport.request("POST", "/api/v1/scrape", body=body)[1])
        deadline = time.monotonic() + timeout_s
        wait_ms = max(0, min(MAX_WAIT_MS, int(timeout_s * 1000)))
        job = cast(ScrapeJob, self.transport.request("POST", "/api/v1/scrape", body={**body, "waitMs": wait_ms}, hold_s=wait_ms / 1000)[1])
        return self._settle(job, deadline, timeout_s)

    def get_scrape(self, job_id: str, *, wait_ms: Optional[int] = None) -> ScrapeJob:
        wait = None if wait_ms is None else min(MAX_WAIT_MS, wait_ms)
        return cast(ScrapeJob, self.transport.request("GET", f"/api/v1/scrape/{_quote(job_id)}", query={"waitMs": wait},
                                                      hold_s=(wait or 0) / 1000)[1])

    def wait_for_scrape(self, job_id: str, *, timeout_s: float = SCRAPE_TIMEOUT_S) -> ScrapeJob:
        return self._settle(cast(ScrapeJob, {"id": job_id, "status": "PENDING"}), time.monotonic() + timeout_s, timeout_s)

    def _settle(self, job: ScrapeJob, deadline: float, timeout_s: float) -> ScrapeJob:
        # A cache hit has no status: it is a finished result.
        while job.get("status") in ("PENDING", "PROCESSING"):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WaitTimeoutError(f"gave up waiting for scrape {job['id']} after {timeout_s} s", code="WAIT_TIMEOUT")
            job = self.get_scrape(job["id"], wait_ms=int(min(MAX_WAIT_MS, remaining * 1000)))
        if job.get("status") == "FAILED":
            err = job.get("error", {"code": "JOB_FAILED", "message": ""})
            raise JobFailedError(f"scrape {job['id']} of {job.get('url')} failed: {err['code']}: {err['message']}", job, err["code"])
        return job

    # -- many pages -------------------------------------------------------------------
    def crawl(self, url: str, **options: Any) -> CrawlJob:
        """Starts a crawl; iterate over the handle for its pages as they finish."""
        _, body = self.transport.request("POST", "/api/v1/crawl", body={"url": url, **options})
        return CrawlJob(self.transport, body["id"])

    def crawl_job(self, job_id: str) -> CrawlJob:
        """A handle on an existing crawl (re-attach by id)."""
        return CrawlJob(self.transport, job_id)

    def batch_scrape(self, urls: List[str], **options: Any) -> BatchJob:
        _, body = self.transport.request("POST", "/api/v1/batch/scrape", body={"urls": urls, **options})
        return BatchJob(self.transport, body["id"], body.get("invalidUrls", []))

    def batch_job(self, job_id: str) -> BatchJob:
        return BatchJob(self.transport, job_id)

    def map(self, url: str, **options: Any) -> MapResult:
        """The URLs of a site (sitemaps, else a short browser crawl); ``search`` ranks them."""
        return cast(MapResult, self.transport.request("POST", "/api/v1/map", body={"url": url, **options}, hold_s=35)[1])

    # -- history ----------------------------------------------------------------------
    def jobs(self, kind: JobKind, *, limit: int = 20, offset: int = 0) -> List[Dict[str, Any]]:
        """The caller's jobs of one kind, newest first."""
        return cast(List[Dict[str, Any]], self.transport.request("GET", _LIST_PATHS[kind], query={"limit": limit, "offset": offset})[1])

    def events(self, job_id: str, *, kind: Optional[str] = None) -> Iterator[Dict[str, Any]]:
        """A job's events from the log, in order, every page of them (without ``kind`` the id is
        looked up as a scrape, crawl, batch and map in turn)."""
        kinds = [kind] if kind else ["scrape", "crawl", "batch", "map"]
        for i, k in enumerate(kinds):
            path = _EVENT_PATHS[k].format(_quote(job_id))
            try:
                page = self.transport.request("GET", path, query={"after": 0})[1]
            except NotFoundError:
                if i == len(kinds) - 1:
                    raise
                continue
            while True:
                yield from page["events"]
                if not page.get("next") or not page["events"]:
                    return
                page = self.transport.request("GET", path, query={"after": page["events"][-1]["seq"]})[1]

    def key(self) -> KeyStanding:
        """The caller's key: id, plan, the plan's limits and what is left of them."""
        return cast(KeyStanding, self.transport.request("GET", "/api/v1/key")[1])

    def webhook_secret(self) -> str:
        """The key's webhook signing secret (``whsec_...``), for verify_webhook."""
        return cast(str, self.transport.request("GET", "/api/v1/webhooks/secret")[1]["secret"])


def _quote(job_id: str) -> str:
    return urllib.parse.quote(job_id, safe="")
