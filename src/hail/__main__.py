from __future__ import annotations

from hail.entry import main

raise SystemExit(main())
