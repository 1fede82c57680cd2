"""A synthetic pnpm + Turborepo workspace of N packages, the same for every run.

    python -m bench.js_synth /tmp/synth --packages 1500 [--seed 7]

Shaped like a large product monorepo: packages sit in layers (tooling at the bottom,
apps at the top) and depend on 1-4 packages of lower layers, so low packages have
large blast radii and high ones small. Dependencies mix ``workspace:*`` and
``workspace:^`` specs across ``dependencies``/``devDependencies``/``peerDependencies``,
some packages lack a test script, and the root package.json depends on one tooling
package (so Turborepo's ``//`` makes every package its dependent, as in
create-t3-turbo). There are no external dependencies: pnpm and turbo answer offline.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path

LAYERS = 10


def package_name(i: int) -> str:
    return f"@synth/p{i:04d}"


def generate(out: Path, packages: int, seed: int = 7) -> list[str]:
    """Write the workspace; returns package names, lowest layer first."""
    rng = random.Random(seed)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    per_layer = max(1, packages // LAYERS)
    names = [package_name(i) for i in range(packages)]
    layer_of = [min(i // per_layer, LAYERS - 1) for i in range(packages)]
    for i, name in enumerate(names):
        manifest: dict = {"name": name, "version": "1.0.0", "private": True,
                          "scripts": {"build": f"echo build {name}"}}
        if rng.random() < 0.85:
            manifest["scripts"]["test"] = f"echo test {name}"
        lower = [j for j in range(i) if layer_of[j] < layer_of[i]]
        if lower:
            for j in rng.sample(lower, k=min(len(lower), rng.randint(1, 4))):
                field = rng.choices(["dependencies", "devDependencies", "peerDependencies"], weights=[80, 15, 5])[0]
                spec = rng.choice(["workspace:*", "workspace:^"])
                manifest.setdefault(field, {})[names[j]] = spec
        d = out / "packages" / f"p{i:04d}"
        d.mkdir(parents=True)
        (d / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    root = {"name": "synth-root", "version": "0.0.0", "private": True, "packageManager": "pnpm@12.4.2",
            "devDependencies": {names[0]: "workspace:*"}}
    (out / "package.json").write_text(json.dumps(root, indent=2) + "\n")
    (out / "pnpm-workspace.yaml").write_text("packages:\n  - 'packages/*'\n")
    turbo = {"tasks": {"build": {"dependsOn": ["^build"]}, "test": {"dependsOn": ["^build"]}}}
    (out / "turbo.json").write_text(json.dumps(turbo, indent=2) + "\n")
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate a synthetic pnpm/Turborepo workspace.")
    parser.add_argument("out", type=Path)
    parser.add_argument("--packages", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    names = generate(args.out, args.packages, args.seed)
    print(f"wrote {len(names)} packages to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
