"""`python -m fullgraph.knowledge`."""
from . import main

raise SystemExit(main())
