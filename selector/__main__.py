from ctxsel.cli import run

run()
