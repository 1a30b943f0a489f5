"""
The official Python SDK (firecrawl-py, its v2 client and its .v1 client) against a real
`trawl serve`. Run by test/e2e/python-sdk.test.ts, which starts the server, the fixture site,
a fake SearXNG and a fake model, and passes them in the environment:
TRAWL_URL, TRAWL_KEY, FIXTURE_URL.

Written for firecrawl-py 4.38 (see setup.sh): its sync client, the async one and .v1. A method
the SDK under test lacks is a skip that names the method and the version, never a pass.
"""
import asyncio
import os
import time
import unittest

import firecrawl
from firecrawl import AsyncFirecrawl, Firecrawl
from firecrawl.v2.utils.http_client import HttpClient

URL = os.environ["TRAWL_URL"]
KEY = os.environ["TRAWL_KEY"]
SITE = os.environ["FIXTURE_URL"]
VERSION = firecrawl.__version__
TITLE_SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}}}

client = Firecrawl(api_key=KEY, api_url=URL)
# The SDK's own transport, for what the SDK itself refuses to send (see the local search).
http = HttpClient(KEY, URL)


def needs(test, *methods, on=client):
    for method in methods:
        if not hasattr(on, method):
            test.skipTest(f"firecrawl-py {VERSION} has no {method}()")


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
            formats=["markdown", "html", "rawHtml", "links", "images", "screenshot", "changeTracking",
                     {"type": "json", "prompt": "the title", "schema": TITLE_SCHEMA}],
        )
        self.assertIn("Configuration reference", doc.markdown)
        self.assertIn("<", doc.html)
        self.assertIn("<html", doc.raw_html.lower())
        self.assertTrue(any(link.startswith(SITE) for link in doc.links))
        self.assertIsInstance(doc.images, list)
        self.assertTrue(doc.screenshot)
        self.assertEqual(doc.json, {"title": "Fake title"})
        self.assertIn(doc.change_tracking["changeStatus"], ("new", "same"))
        self.assertEqual(doc.metadata.status_code, 200)
        self.assertEqual(doc.metadata.proxy_used, "basic")

    def test_model_and_page_formats(self):
        doc = client.scrape(
            f"{SITE}/docs/configuration.html",
            formats=["summary", "branding", {"type": "question", "question": "Which settings win?"},
                     {"type": "highlights", "query": "environment variables"}],
        )
        self.assertEqual(doc.summary, "Quiver is configured by file.")
        self.assertEqual(doc.answer, "Environment variables win.")
        self.assertIn("Environment variables win.", doc.highlights)
        self.assertEqual(doc.branding.brand_name, "Quiver documentation")
        self.assertEqual(doc.branding.colors["primary"], "#1C5FA8")

    def test_product_and_menu(self):
        shoe = client.scrape(f"{SITE}/shop/trail-runner.html", formats=["product"])
        self.assertEqual(shoe.product.title, "Ridgeline Trail Runner 3")
        self.assertEqual(shoe.product.brand, "Northpeak")
        trattoria = client.scrape(f"{SITE}/restaurants/trattoria.html", formats=["menu"])
        self.assertTrue(trattoria.menu.is_menu)
        self.assertEqual(trattoria.menu.merchant.name, "Trattoria Sole")
        self.assertIn("Bruschetta al pomodoro", [item.name for section in trattoria.menu.sections
                                                 for item in section.items])

    def test_options_the_sdk_adds(self):
        doc = client.scrape(f"{SITE}/docs/install.html", formats=["markdown"], only_main_content=True,
                            fast_mode=False, block_ads=True, max_age=0, integration="trawl-test")
        self.assertIn("Install", doc.markdown)

    def test_interact_code_prompt_and_stop(self):
        needs(self, "interact", "stop_interaction")
        doc = client.scrape(f"{SITE}/browser/actions.html", formats=["markdown"])
        scrape_id = doc.metadata.scrape_id
        ran = client.interact(scrape_id, "return await page.title()", language="node")
        self.assertTrue(ran.success)
        self.assertIn("Harbour booking form", ran.output or ran.result or "")
        # The same page, still open: the fake model's plan types into its form.
        prompted = client.interact(scrape_id, prompt="Type Seagull as the boat name")
        self.assertIn("Typed the boat name.", prompted.output)
        self.assertIn("Seagull", prompted.output)
        stopped = client.stop_interaction(scrape_id)
        self.assertTrue(stopped.success)


class Jobs(unittest.TestCase):
    def test_batch(self):
        job = client.batch_scrape([f"{SITE}/docs/install.html", f"{SITE}/docs/configuration.html"],
                                  formats=["markdown"], poll_interval=1)
        self.assertEqual(job.status, "completed")
        self.assertEqual(sorted(doc.metadata.source_url for doc in job.data),
                         [f"{SITE}/docs/configuration.html", f"{SITE}/docs/install.html"])
        started = client.start_batch_scrape([f"{SITE}/docs/install.html"], formats=["markdown"])
        wait_until(lambda: client.get_batch_scrape_status(started.id).status == "completed")
        self.assertEqual(client.get_batch_scrape_errors(started.id).errors, [])

    def test_batch_status_pages(self):
        # One more page than a status answer holds (100), so `next` is followed.
        urls = [f"{SITE}/docs/install.html?copy={n}" for n in range(101)]
        started = client.start_batch_scrape(urls, formats=["links"])
        job = wait_until(lambda: (s := client.get_batch_scrape_status(started.id)).status == "completed" and s,
                         seconds=120)
        self.assertEqual(len(job.data), 101)
        from firecrawl.v2.types import PaginationConfig
        first = client.get_batch_scrape_status(started.id, pagination_config=PaginationConfig(auto_paginate=False))
        self.assertEqual(len(first.data), 100)
        self.assertTrue(first.next)
        rest = client.get_batch_scrape_status_page(first.next)
        self.assertEqual(len(rest.data), 1)
        self.assertIsNone(rest.next)

    def test_batch_cancel(self):
        started = client.start_batch_scrape([f"{SITE}/slow?ms=2000&n={n}" for n in range(10)],
                                            formats=["markdown"], max_concurrency=1)
        self.assertTrue(client.cancel_batch_scrape(started.id))
        self.assertEqual(client.get_batch_scrape_status(started.id).status, "cancelled")

    def test_crawl_waiter_status_errors_active(self):
        job = client.crawl(f"{SITE}/docs/", limit=3, poll_interval=1)
        self.assertEqual(job.status, "completed")
        self.assertEqual(len(job.data), 3)
        self.assertTrue(all(doc.markdown for doc in job.data))
        started = client.start_crawl(f"{SITE}/docs/", limit=2)
        self.assertIsNotNone(client.get_active_crawls().crawls)
        status = wait_until(lambda: (s := client.get_crawl_status(started.id)).status == "completed" and s)
        self.assertEqual(len(status.data), 2)
        self.assertEqual(client.get_crawl_errors(started.id).errors, [])

    def test_crawl_cancel(self):
        started = client.start_crawl(f"{SITE}/", limit=40, delay=1)
        self.assertTrue(client.cancel_crawl(started.id))
        self.assertEqual(client.get_crawl_status(started.id).status, "cancelled")

    def test_crawl_params_preview(self):
        preview = client.crawl_params_preview(f"{SITE}/", "only the docs pages")
        self.assertIsNotNone(preview)

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
        self.assertTrue(all(link.url.startswith(SITE) for link in result.links))

    def test_search_web_and_local(self):
        web = client.search("lighthouse", limit=2)
        self.assertIn("lighthouse", web.web[0].url)
        client.scrape(f"{SITE}/docs/configuration.html", formats=["markdown"])
        # The SDK checks source names itself and knows only web, news and images, so the built-in
        # index is asked for through its transport.
        with self.assertRaises(ValueError):
            client.search("environment variables", sources=["local"])
        local = http.post("/v2/search", {"query": "environment variables", "limit": 3,
                                         "sources": [{"type": "local"}]}).json()
        self.assertEqual(local["data"]["web"][0]["url"], f"{SITE}/docs/configuration.html")

    def test_extract(self):
        result = client.extract(urls=[f"{SITE}/docs/configuration.html"], prompt="the title",
                                schema=TITLE_SCHEMA, poll_interval=1)
        self.assertEqual(result.status, "completed")
        self.assertEqual(result.data, {"title": "Fake title"})
        started = client.start_extract([f"{SITE}/docs/install.html"], prompt="the title", schema=TITLE_SCHEMA)
        done = wait_until(lambda: (s := client.get_extract_status(started.id)).status == "completed" and s)
        self.assertEqual(done.data, {"title": "Fake title"})


class Account(unittest.TestCase):
    def test_usage(self):
        self.assertGreater(client.get_credit_usage().remaining_credits, 0)
        self.assertIsNotNone(client.get_token_usage().remaining_tokens)
        self.assertGreaterEqual(client.get_concurrency().max_concurrency, 1)
        # The history methods are on the v2 client only.
        needs(self, "get_credit_usage_historical", "get_token_usage_historical", on=client.v2)
        self.assertIsNotNone(client.v2.get_credit_usage_historical().periods)
        self.assertIsNotNone(client.v2.get_token_usage_historical(by_api_key=True).periods)
        needs(self, "get_queue_status")
        self.assertIsNotNone(client.get_queue_status().max_concurrency)


class Agent(unittest.TestCase):
    def test_start_status_cancel(self):
        needs(self, "start_agent", "get_agent_status", "cancel_agent")
        started = client.start_agent(prompt="Find the lighthouses", urls=[f"{SITE}/"])
        self.assertTrue(client.cancel_agent(started.id))
        status = client.get_agent_status(started.id)
        # The SDK's type has no "cancelled": a cancelled run reads as failed.
        self.assertEqual(status.status, "failed")

    def test_waiter(self):
        needs(self, "agent")
        done = client.agent(prompt="List the lighthouses. Finish at once.", urls=[f"{SITE}/"],
                            poll_interval=1, timeout=60)
        self.assertEqual(done.status, "completed")
        self.assertEqual(done.data, {"lighthouses": ["Harbour light"]})


class Parse(unittest.TestCase):
    def test_parse_bytes(self):
        needs(self, "parse")
        from firecrawl.v2.types import ParseOptions
        doc = client.parse(b"<h1>Parsed here</h1><p>Harbour text.</p>", filename="a.html",
                           content_type="text/html", options=ParseOptions(formats=["markdown"]))
        self.assertIn("# Parsed here", doc.markdown)


class Monitors(unittest.TestCase):
    def test_lifecycle(self):
        needs(self, "create_monitor", "list_monitors", "get_monitor", "update_monitor",
              "run_monitor", "list_monitor_checks", "get_monitor_check", "delete_monitor")
        created = client.create_monitor("docs", {"cron": "0 * * * *"},
                                        [{"type": "scrape", "urls": [f"{SITE}/docs/install.html"]}])
        self.assertEqual(created.status, "active")
        self.assertIn(created.id, [m.id for m in client.list_monitors()])
        self.assertEqual(client.get_monitor(created.id).name, "docs")
        self.assertEqual(client.update_monitor(created.id, name="docs 2", status="paused").status, "paused")
        with self.assertRaises(Exception):
            client.run_monitor(created.id)
        self.assertEqual(client.update_monitor(created.id, status="active").name, "docs 2")
        check = client.run_monitor(created.id)
        done = wait_until(lambda: (c := client.get_monitor_check(created.id, check.id)).status
                          in ("completed", "partial", "failed") and c)
        self.assertEqual(done.status, "completed")
        self.assertEqual([p.status for p in done.pages], ["new"])
        self.assertIn(check.id, [c.id for c in client.list_monitor_checks(created.id)])
        self.assertTrue(client.delete_monitor(created.id))
        with self.assertRaises(Exception):
            client.get_monitor(created.id)


class Browser(unittest.TestCase):
    def test_session(self):
        needs(self, "browser", "browser_execute", "list_browsers", "delete_browser")
        session = client.browser(ttl=120)
        self.assertTrue(session.success)
        ran = client.browser_execute(session.id, "return 1 + 1", language="node")
        self.assertIn("2", ran.result or ran.output or "")
        self.assertIn(session.id, [s.id for s in client.list_browsers(status="active").sessions])
        self.assertTrue(client.delete_browser(session.id).success)


class Async(unittest.TestCase):
    """The SDK's asyncio client: its own transport (httpx), the same endpoints."""

    def test_scrape_map_search_crawl_batch(self):
        async def run():
            aclient = AsyncFirecrawl(api_key=KEY, api_url=URL)
            doc = await aclient.scrape(f"{SITE}/docs/configuration.html", formats=["markdown"])
            self.assertIn("Configuration reference", doc.markdown)
            mapped = await aclient.map(f"{SITE}/docs/", limit=10)
            self.assertIn(f"{SITE}/docs/install.html", [link.url for link in mapped.links])
            found = await aclient.search("lighthouse", limit=2)
            self.assertIn("lighthouse", found.web[0].url)
            crawled = await aclient.crawl(url=f"{SITE}/docs/", limit=2, poll_interval=1)
            self.assertEqual(crawled.status, "completed")
            self.assertEqual(len(crawled.data), 2)
            batch = await aclient.batch_scrape([f"{SITE}/docs/install.html"], formats=["markdown"], poll_interval=1)
            self.assertIn("Quiver ships as a single binary", batch.data[0].markdown)

        asyncio.run(run())


class HostedIndexes(unittest.TestCase):
    def test_research_says_not_configured(self):
        needs(self, "search_papers")
        with self.assertRaises(Exception) as raised:
            client.search_papers("lighthouse optics")
        self.assertIn("hosted", str(raised.exception).lower())


class V1(unittest.TestCase):
    def test_scrape_map_crawl_batch_extract(self):
        v1 = client.v1
        scraped = v1.scrape_url(f"{SITE}/docs/configuration.html", formats=["markdown", "links"])
        self.assertIn("Configuration reference", scraped.markdown)
        mapped = v1.map_url(f"{SITE}/", limit=5)
        self.assertTrue(all(isinstance(link, str) and link.startswith(SITE) for link in mapped.links))
        crawled = v1.crawl_url(f"{SITE}/docs/", limit=2, poll_interval=1)
        self.assertEqual(crawled.status, "completed")
        self.assertEqual(len(crawled.data), 2)
        batch = v1.batch_scrape_urls([f"{SITE}/docs/install.html"], formats=["markdown"], poll_interval=1)
        self.assertEqual(batch.status, "completed")
        self.assertIn("Install", batch.data[0].markdown)
        extracted = v1.extract([f"{SITE}/docs/configuration.html"], prompt="the title", schema=TITLE_SCHEMA)
        self.assertTrue(extracted.success)
        self.assertEqual(extracted.data, {"title": "Fake title"})


if __name__ == "__main__":
    unittest.main()
