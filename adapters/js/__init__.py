"""JavaScript workspaces: pnpm, npm, yarn, Turborepo and Nx share one package discovery."""

# Here rather than in ``workspace`` (which re-exports them): recognising a workspace
# happens on every run, reading its manifests only when the graph cache is stale.
MANIFEST = "package.json"
PNPM_WORKSPACE = "pnpm-workspace.yaml"
