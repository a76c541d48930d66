import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# module summaries are cached on disk (fullgraph.cache): one fresh cache per test run,
# never the user's
os.environ.setdefault("FULLGRAPH_CACHE_DIR", tempfile.mkdtemp(prefix="fullgraph-test-cache-"))
