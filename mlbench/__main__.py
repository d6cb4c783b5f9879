from mlbench.cli import main

raise SystemExit(main())
