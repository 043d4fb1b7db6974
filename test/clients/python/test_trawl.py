"""The Python client against the real system (run by test/clients/python.test.ts, which starts
Trawl and the test site and passes TRAWL_API_URL, TRAWL_API_KEY and SITE_URL)."""
import http.server
import json
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "clients", "python"))
from trawl import (AuthenticationError, ConnectionError, InvalidRequestError, JobFailedError, NotFoundError,  # noqa: E402
                   Trawl, WebhookVerificationError, verify_webhook)

SITE = os.environ["SITE_URL"].rstrip("/")


class Hooks(http.server.BaseHTTPRequestHandler):
    received = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["content-length"]))
        Hooks.received.append((dict(self.headers), body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


class TrawlClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.trawl = Trawl()  # TRAWL_API_URL / TRAWL_API_KEY

    def test_scrape_waits_for_the_page(self):
        page = self.trawl.scrape(f"{SITE}/a", formats=["markdown", "links"])
        self.assertEqual(page["status"], "COMPLETED")
        self.assertIn("This is the page called Page A", page["markdown"])
        self.assertEqual(page["links"], [f"{SITE}/"])
        created = self.trawl.scrape(f"{SITE}/c", wait=False, formats=["html"])
        done = self.trawl.wait_for_scrape(created["id"]) if created.get("status") else created
        self.assertIn("<h1>Page C</h1>", done["html"])

    def test_typed_errors(self):
        with self.assertRaises(InvalidRequestError) as bad:
            self.trawl.scrape("not a url")
        self.assertEqual(bad.exception.status, 400)
        self.assertTrue(bad.exception.request_id)
        with self.assertRaises(JobFailedError) as failed:
            self.trawl.scrape(f"{SITE}/c", waitFor="#never", timeout=1000)
        self.assertEqual(failed.exception.code, "SELECTOR_NOT_FOUND")
        with self.assertRaises(NotFoundError):
            self.trawl.get_scrape("AAAAAAAAAAAAAAAAAAAAAA")
        with self.assertRaises(AuthenticationError):
            Trawl(api_key="wrong_key_0123456789").key()
        started = time.monotonic()
        with self.assertRaises(ConnectionError) as down:
            Trawl(api_url="http://127.0.0.1:9", max_connect_retries=1).key()
        self.assertEqual(down.exception.code, "CONNECTION_REFUSED")
        self.assertLess(time.monotonic() - started, 15)

    def test_crawl_streams_pages_then_done_has_them_all(self):
        crawl = self.trawl.crawl(f"{SITE}/slow", limit=13)
        first_status = None
        urls = []
        for p in crawl.pages(progress_interval_s=0.3):
            if first_status is None:
                first_status = crawl.status()["status"]
            urls.append(p["url"])
        self.assertIn(first_status, ("PENDING", "PROCESSING"), "the first page came while the crawl ran")
        final = crawl.done()
        self.assertEqual(final["status"], "COMPLETED")
        self.assertEqual(urls, [p["url"] for p in final["data"]])
        self.assertEqual(len(urls), 13)
        again = self.trawl.crawl_job(crawl.id)
        self.assertEqual([p["url"] for p in again], urls, "re-attached by id")

    def test_batch_iteration_map_jobs_events_and_key(self):
        batch = self.trawl.batch_scrape([f"{SITE}/a", f"{SITE}/b", "nope"], ignoreInvalidUrls=True)
        self.assertEqual(batch.invalid_urls, ["nope"])
        pages = list(batch)
        self.assertEqual(sorted(p["url"] for p in pages), [f"{SITE}/a", f"{SITE}/b"])
        self.assertTrue(all(p["status"] == "COMPLETED" for p in pages))
        mapped = self.trawl.map(f"{SITE}/", search="b")
        self.assertEqual(mapped["links"][0], f"{SITE}/b")
        self.assertIn(batch.id, [j["id"] for j in self.trawl.jobs("batch", limit=50)])
        events = list(self.trawl.events(batch.id))
        self.assertEqual(events[0]["event"], "batch_requested")
        me = self.trawl.key()
        self.assertEqual(me["plan"], "team")
        self.assertEqual(me["pagesLeft"], me["limits"]["monthlyPages"] - me["pagesUsed"] - me["pagesHeld"])

    def test_a_real_webhook_verifies_and_a_tampered_one_does_not(self):
        server = http.server.HTTPServer(("127.0.0.1", 0), Hooks)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            hook = f"http://127.0.0.1:{server.server_address[1]}/hook"
            crawl = self.trawl.crawl(f"{SITE}/c", limit=1, webhookUrl=hook)
            crawl.wait()
            deadline = time.monotonic() + 30
            while not Hooks.received and time.monotonic() < deadline:
                time.sleep(0.1)
            headers, body = Hooks.received[0]
            payload = verify_webhook(body, headers, self.trawl.webhook_secret())
            self.assertEqual(payload["event"], "crawl.completed")
            self.assertEqual(payload["data"]["id"], crawl.id)
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(body.replace(b"COMPLETED", b"FAILED"), headers, self.trawl.webhook_secret())
        finally:
            server.shutdown()


if __name__ == "__main__":
    unittest.main(verbosity=2)
