import sys

from ctxsel.cli import main

sys.exit(main())
