"""
LangChain's FireCrawlLoader (langchain-community, built on firecrawl-py) against a real
`trawl serve`, in the three modes that return pages: scrape, crawl and map. Run by
test/e2e/python-sdk.test.ts with TRAWL_URL, TRAWL_KEY and FIXTURE_URL set, when the Python it
uses can import langchain_community (see setup.sh).
"""
import os
import unittest

from langchain_community.document_loaders import FireCrawlLoader

URL = os.environ["TRAWL_URL"]
KEY = os.environ["TRAWL_KEY"]
SITE = os.environ["FIXTURE_URL"]


def load(url, mode, params):
    return FireCrawlLoader(url=url, api_key=KEY, api_url=URL, mode=mode, params=params).load()


class Loader(unittest.TestCase):
    def test_scrape(self):
        docs = load(f"{SITE}/docs/configuration.html", "scrape", {"formats": ["markdown"]})
        self.assertEqual(len(docs), 1)
        self.assertIn("Configuration reference", docs[0].page_content)
        self.assertIn("Environment variables win.", docs[0].page_content)
        self.assertEqual(docs[0].metadata["source_url"], f"{SITE}/docs/configuration.html")

    def test_crawl(self):
        docs = load(f"{SITE}/docs/", "crawl", {"limit": 4, "poll_interval": 1})
        self.assertEqual(len(docs), 4)
        text = "\n".join(doc.page_content for doc in docs)
        for phrase in ("Quiver ships as a single binary", "Environment variables win.", "writing a first sync job"):
            self.assertIn(phrase, text)

    def test_map(self):
        docs = load(f"{SITE}/docs/", "map", {"limit": 10})
        urls = {doc.page_content for doc in docs}
        self.assertIn(f"{SITE}/docs/install.html", urls)
        self.assertTrue(all(url.startswith(SITE) for url in urls))


if __name__ == "__main__":
    unittest.main()
