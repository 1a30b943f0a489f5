"""
The official Python SDK (firecrawl-py, its v2 client and its .v1 client) against a real
`trawl serve`. Run by test/e2e/python-sdk.test.ts, which starts the server, the fixture site,
a fake SearXNG and a fake model, and passes them in the environment:
TRAWL_URL, TRAWL_KEY, FIXTURE_URL.

Methods the SDK version under test lacks (agent, parse, monitors, browser and interact came in
later versions) are called through the SDK's own HTTP client, so its transport (headers, a
Content-Type on every DELETE) is what reaches the server.
"""
import os
import time
import unittest

from firecrawl import Firecrawl
from firecrawl.v2.utils.http_client import HttpClient

URL = os.environ["TRAWL_URL"]
KEY = os.environ["TRAWL_KEY"]
SITE = os.environ["FIXTURE_URL"]

client = Firecrawl(api_key=KEY, api_url=URL)
http = HttpClient(KEY, URL)


def wait_until(check, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("condition not met in time")


class Scrape(unittest.TestCase):
    def test_every_format(self):
        doc = client.scrape(
            f"{SITE}/docs/configuration.html",
            formats=["markdown", "html", "rawHtml", "links", {"type": "images"}, "changeTracking",
                     {"type": "json", "prompt": "the title", "schema": {"type": "object", "properties": {"title": {"type": "string"}}}}],
        )
        self.assertIn("Configuration reference", doc.markdown)
        self.assertIn("<", doc.html)
        self.assertIn("<html", doc.raw_html.lower())
        self.assertTrue(len(doc.links) > 0)
        self.assertEqual(doc.json, {"title": "Fake title"})
        self.assertIn(doc.change_tracking["changeStatus"], ("new", "same"))
        self.assertEqual(doc.metadata.status_code, 200)
        self.assertEqual(doc.metadata.proxy_used, "basic")

    def test_options_the_sdk_adds(self):
        doc = client.scrape(f"{SITE}/docs/install.html", formats=["markdown"], only_main_content=True,
                            fast_mode=False, block_ads=True, max_age=0)
        self.assertTrue(doc.markdown)


class Jobs(unittest.TestCase):
    def test_batch(self):
        job = client.batch_scrape([f"{SITE}/docs/install.html", f"{SITE}/docs/configuration.html"],
                                  formats=["markdown"], poll_interval=1)
        self.assertEqual(job.status, "completed")
        self.assertEqual(len(job.data), 2)
        started = client.start_batch_scrape([f"{SITE}/docs/install.html"], formats=["markdown"])
        wait_until(lambda: client.get_batch_scrape_status(started.id).status == "completed")
        self.assertEqual(client.get_batch_scrape_errors(started.id).errors, [])

    def test_crawl_waiter_status_errors(self):
        job = client.crawl(f"{SITE}/docs/", limit=3, poll_interval=1)
        self.assertEqual(job.status, "completed")
        self.assertEqual(len(job.data), 3)
        self.assertTrue(all(doc.markdown for doc in job.data))
        started = client.start_crawl(f"{SITE}/docs/", limit=2)
        status = wait_until(lambda: (s := client.get_crawl_status(started.id)).status == "completed" and s)
        self.assertEqual(len(status.data), 2)
        self.assertIsNotNone(client.get_crawl_errors(started.id))

    def test_crawl_cancel(self):
        started = client.start_crawl(f"{SITE}/", limit=40, delay=1)
        self.assertTrue(client.cancel_crawl(started.id))
        # firecrawl-py 3.3's CrawlJob type has no "cancelled" (the JS SDK's and later ones do).
        self.assertEqual(http.get(f"/v2/crawl/{started.id}").json()["status"], "cancelled")

    def _watch(self, job_id):
        docs, statuses = [], []
        watcher = client.watcher(job_id, kind="crawl", poll_interval=1, timeout=60)
        watcher.add_event_listener("document", lambda d: docs.append(d))
        watcher.add_listener(lambda s: statuses.append(s.status))
        watcher.start()
        wait_until(lambda: statuses and statuses[-1] in ("completed", "failed", "cancelled"))
        watcher.stop()
        return docs, statuses

    def test_watcher_live_and_after_completion(self):
        live = client.start_crawl(f"{SITE}/docs/", limit=3)
        docs, statuses = self._watch(live.id)
        self.assertEqual(statuses[-1], "completed")
        self.assertEqual(len(docs), 3)
        docs, statuses = self._watch(live.id)
        self.assertEqual(statuses[-1], "completed")
        self.assertEqual(len(docs), 3)


class MapSearchExtract(unittest.TestCase):
    def test_map(self):
        result = client.map(f"{SITE}/", limit=5)
        self.assertEqual(len(result.links), 5)
        self.assertTrue(result.links[0].url.startswith(SITE))

    def test_search_web_and_local(self):
        web = client.search("lighthouse", limit=2)
        self.assertIn("lighthouse", web.web[0].url)
        client.scrape(f"{SITE}/docs/configuration.html", formats=["markdown"])
        # firecrawl-py 3.3 checks source names itself and knows only web, news and images.
        local = http.post("/v2/search", {"query": "environment variables", "limit": 3,
                                         "sources": [{"type": "local"}]}).json()
        self.assertEqual(local["data"]["web"][0]["url"], f"{SITE}/docs/configuration.html")

    def test_extract(self):
        result = client.extract(urls=[f"{SITE}/docs/configuration.html"], prompt="the title",
                                schema={"type": "object", "properties": {"title": {"type": "string"}}},
                                poll_interval=1)
        self.assertEqual(result.status, "completed")
        self.assertEqual(result.data, {"title": "Fake title"})


class Account(unittest.TestCase):
    def test_usage(self):
        self.assertIsNotNone(client.get_credit_usage().remaining_credits)
        self.assertIsNotNone(client.get_token_usage())
        self.assertIsNotNone(client.get_concurrency())


class LaterEndpoints(unittest.TestCase):
    """Through the SDK's transport: agent, parse, monitors, browser, interact."""

    def test_agent_cancel(self):
        started = http.post("/v2/agent", {"prompt": "Find the lighthouses"}).json()
        self.assertTrue(http.delete(f"/v2/agent/{started['id']}").json()["success"])
        status = http.get(f"/v2/agent/{started['id']}").json()
        self.assertIn(status["status"], ("processing", "completed", "failed"))
        self.assertEqual(status["status"], "failed")
        self.assertTrue(status["cancelled"])

    def test_parse(self):
        import requests
        answer = requests.post(f"{URL}/v2/parse", headers={"Authorization": f"Bearer {KEY}"},
                               files={"file": ("a.html", b"<h1>Parsed here</h1>", "text/html")},
                               data={"options": '{"formats": ["markdown"], "fastMode": false}'})
        self.assertEqual(answer.status_code, 200)
        self.assertIn("# Parsed here", answer.json()["data"]["markdown"])

    def test_monitor_create_and_delete(self):
        created = http.post("/v2/monitor", {"name": "docs", "schedule": {"cron": "0 * * * *"},
                                             "targets": [{"type": "scrape", "urls": [f"{SITE}/docs/install.html"]}]})
        self.assertEqual(created.status_code, 200, created.text)
        monitor_id = created.json()["data"]["id"]
        self.assertEqual(http.delete(f"/v2/monitor/{monitor_id}").status_code, 200)
        self.assertEqual(http.get(f"/v2/monitor/{monitor_id}").status_code, 404)

    def test_browser_and_interact(self):
        session = http.post("/v2/browser", {}).json()
        ran = http.post(f"/v2/browser/{session['id']}/execute", {"code": "return 1 + 1"}).json()
        self.assertIn("2", ran["result"])
        self.assertEqual(http.delete(f"/v2/browser/{session['id']}").json()["status"], "destroyed")
        doc = client.scrape(f"{SITE}/browser/actions.html", formats=["markdown"])
        scrape_id = doc.metadata.scrape_id
        ran = http.post(f"/v2/scrape/{scrape_id}/interact", {"code": "return await page.title()", "language": "node"}).json()
        self.assertIn("Harbour booking form", ran["output"])
        self.assertEqual(http.delete(f"/v2/scrape/{scrape_id}/interact").json()["status"], "destroyed")


class V1(unittest.TestCase):
    def test_scrape_map_crawl_batch_extract(self):
        v1 = client.v1
        scraped = v1.scrape_url(f"{SITE}/docs/configuration.html", formats=["markdown", "links"])
        self.assertIn("Configuration reference", scraped.markdown)
        mapped = v1.map_url(f"{SITE}/", limit=5)
        self.assertTrue(all(isinstance(link, str) for link in mapped.links))
        crawled = v1.crawl_url(f"{SITE}/docs/", limit=2, poll_interval=1)
        self.assertEqual(crawled.status, "completed")
        self.assertEqual(len(crawled.data), 2)
        batch = v1.batch_scrape_urls([f"{SITE}/docs/install.html"], formats=["markdown"], poll_interval=1)
        self.assertEqual(batch.status, "completed")
        self.assertTrue(batch.data[0].markdown)
        extracted = v1.extract([f"{SITE}/docs/configuration.html"], prompt="the title",
                               schema={"type": "object", "properties": {"title": {"type": "string"}}})
        self.assertTrue(extracted.success)
        self.assertEqual(extracted.data, {"title": "Fake title"})


if __name__ == "__main__":
    unittest.main()
