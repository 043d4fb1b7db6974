"""trawl: a Python client for Trawl (standard library only).

    from trawl import Trawl
    trawl = Trawl(api_url="http://127.0.0.1:3000", api_key="trawl_...")
    page = trawl.scrape("https://example.com", formats=["markdown", "links"])
    for p in trawl.crawl("https://example.com", limit=20):
        print(p["url"], len(p.get("markdown", "")))
"""
from .client import DEFAULT_API_URL, Trawl
from .errors import (AuthenticationError, ConflictError, ConnectionError, InvalidRequestError, JobFailedError,
                     NotFoundError, QuotaExceededError, RateLimitError, ServerError, TrawlError, WaitTimeoutError,
                     WebhookVerificationError)
from .jobs import BatchJob, CrawlJob
from .webhooks import verify_webhook

__version__ = "0.1.0"
__all__ = [
    "Trawl", "DEFAULT_API_URL", "CrawlJob", "BatchJob", "verify_webhook", "TrawlError", "AuthenticationError",
    "InvalidRequestError", "NotFoundError", "ConflictError", "RateLimitError", "QuotaExceededError", "ServerError",
    "ConnectionError", "JobFailedError", "WaitTimeoutError", "WebhookVerificationError",
]
