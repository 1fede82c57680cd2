"""JavaScript workspaces: pnpm, npm, yarn, Turborepo and Nx share one package discovery."""
