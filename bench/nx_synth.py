"""Generate a synthetic Nx workspace for speed and agreement measurements.

Usage: python bench/nx_synth.py DIR [--projects 1000] [--files 5] [--seed 1]

Deterministic for a seed. Half the projects are package.json packages under
``packages/*`` (edges from ``workspace:*`` dependencies and package-name imports), half
are project.json libraries under ``libs/`` (edges from tsconfig path aliases and
relative imports); every 50th project has a glob implicit dependency. Each project
imports up to three earlier projects, so the graph is a DAG with long chains. Then:

    python bench/nx_compare.py DIR --time p0 packages/p0/src/f0.ts
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2) + "\n")


def generate(root: Path, projects: int, files: int, seed: int) -> None:
    rng = random.Random(seed)
    write(root / "nx.json", {"targetDefaults": {"test": {"dependsOn": ["^build"]}}})
    write(root / "package.json", {"name": "synth", "private": True, "workspaces": ["packages/*"],
                                  "devDependencies": {"@nx/js": "24.0.6", "nx": "24.0.6"}})
    paths: dict[str, list[str]] = {}
    for i in range(projects):
        name = f"p{i}"
        in_packages = i % 2 == 0
        root_dir = f"packages/{name}" if in_packages else f"libs/group{i % 20}/{name}"
        deps = sorted(rng.sample(range(i), min(3, i)))
        if in_packages:
            manifest = {"name": name, "version": "1.0.0", "main": "src/f0.ts", "scripts": {"build": "tsc"}}
            pkg_deps = {f"p{d}": "workspace:*" for d in deps if d % 2 == 0 and rng.random() < 0.5}
            if pkg_deps:
                manifest["dependencies"] = pkg_deps
            if i % 3 == 0:
                manifest["scripts"]["test"] = "vitest"
            if i % 50 == 7:
                manifest["nx"] = {"implicitDependencies": [f"p{i - 7}*", "!p1"]}
            write(root / root_dir / "package.json", manifest)
        else:
            paths[f"@synth/{name}"] = [f"{root_dir}/src/f0.ts"]
            config = {"name": name, "projectType": "library", "targets": {"build": {"command": "tsc"}}}
            if i % 3 == 0:
                config["targets"]["test"] = {"command": "vitest"}
            write(root / root_dir / "project.json", config)
        for f in range(files):
            lines = [f"// file {f} of {name}"]
            for d in deps:
                if rng.random() < 0.4:
                    continue
                dep_name = f"p{d}"
                if d % 2 == 0:
                    lines.append(f"import {{ v{d} }} from '{dep_name}';")
                elif rng.random() < 0.8:
                    lines.append(f"import {{ v{d} }} from '@synth/{dep_name}';")
                else:
                    dep_root = f"libs/group{d % 20}/{dep_name}"
                    up = "../" * (root_dir.count("/") + 2)
                    lines.append(f"const m{d} = require('{up}{dep_root}/src/f0');")
            lines.append(f"export const v{i}_{f} = {f};")
            lines.append("/* import { nothing } from 'p0'; */")
            write(root / root_dir / "src" / f"f{f}.ts", "\n".join(lines) + "\n")
    write(root / "tsconfig.base.json", {"compilerOptions": {"baseUrl": ".", "paths": paths}})


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path)
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--files", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    generate(args.root, args.projects, args.files, args.seed)
    print(f"wrote {args.projects} projects x {args.files} files to {args.root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
