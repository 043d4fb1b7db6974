"""Request and response shapes as TypedDicts, with the API's own (camelCase) field names, so a
request written for docs/api.md is the same dict here."""
from __future__ import annotations

from typing import Any, Dict, List, Literal, TypedDict, Union

Format = Literal["markdown", "html", "rawHtml", "links", "screenshot", "json", "changeTracking"]
JobStatus = Literal["PENDING", "PROCESSING", "COMPLETED", "FAILED", "CANCELLED"]


class Viewport(TypedDict):
    width: int
    height: int


class ScrapeOptions(TypedDict, total=False):
    formats: List[Format]
    onlyMainContent: bool
    includeTags: List[str]
    excludeTags: List[str]
    viewport: Viewport
    mobile: bool
    device: str
    darkMode: bool
    headers: Dict[str, str]
    waitFor: Union[int, str]
    timeout: int
    screenshotOptions: Dict[str, Any]
    actions: List[Dict[str, Any]]
    engine: Literal["auto", "browser", "http"]
    extract: Dict[str, Any]
    changeTrackingOptions: Dict[str, Any]
    parsers: List[str]
    maxPages: int
    acceptOutcomes: List[str]
    consent: Literal["reject", "accept"]


class CrawlOptions(TypedDict, total=False):
    maxDepth: int
    limit: int
    includePaths: List[str]
    excludePaths: List[str]
    allowExternalLinks: bool
    ignoreRobots: bool
    scrapeOptions: ScrapeOptions
    webhookUrl: str


class MapOptions(TypedDict, total=False):
    search: str
    limit: int
    ignoreSitemap: bool
    includeSubdomains: bool


class Metadata(TypedDict, total=False):
    title: str
    description: str
    statusCode: int
    language: str
    sourceUrl: str


class JobError(TypedDict):
    code: str
    message: str


class ScrapeJob(TypedDict, total=False):
    id: str
    url: str
    status: JobStatus
    fromCache: bool
    markdown: str
    html: str
    rawHtml: str
    links: List[str]
    screenshot: Dict[str, Any]
    metadata: Metadata
    timings: Dict[str, int]
    error: JobError
    json: Any
    changeTracking: Dict[str, Any]


class Page(TypedDict, total=False):
    """A crawl or batch page entry."""
    url: str
    status: JobStatus
    depth: int
    markdown: str
    html: str
    rawHtml: str
    links: List[str]
    metadata: Metadata
    error: JobError
    json: Any


class MultiPageJob(TypedDict, total=False):
    """A crawl's or a batch's view (GET /api/v1/crawl/:id, /api/v1/batch/scrape/:id).
    Always there: id, status, totalUrls, completedUrls, failedUrls, createdAt."""
    id: str
    status: JobStatus
    totalUrls: int
    completedUrls: int
    failedUrls: int
    createdAt: str
    startUrl: str
    data: List[Page]
    next: str
    error: JobError


class MapResult(TypedDict):
    links: List[str]
    count: int


class KeyStanding(TypedDict):
    keyId: str
    plan: str
    limits: Dict[str, int]
    enforced: Dict[str, bool]
    month: str
    pagesUsed: int
    pagesHeld: int
    pagesLeft: int
    runningJobs: int
    quotaRenewsAt: str


class WebhookPayload(TypedDict):
    event: str
    data: Dict[str, Any]
    timestamp: str
