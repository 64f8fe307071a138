#!/bin/bash
# Declared edges, both ways: every module a target's Swift files import is declared as that
# target's dependency in Package.swift (a local target by name, or a package's product), and every
# declared dependency is imported by some file of the target, so the graph Package.swift shows is
# the graph the code has. A module reached only through another target's dependencies builds
# today and breaks the day that other edge goes. The toolchain's own modules
# (Foundation, Glibc, Testing, …) need no declaration. Prints every undeclared import as
# FILE:LINE, and every unused edge, and exits 1 if there is one. Also holds README.md's layout
# table to Package.swift's targets. Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

# The toolchain's modules: always there, never declared.
system='^(Swift|_Concurrency|Foundation|FoundationEssentials|FoundationInternationalization|FoundationXML|Glibc|Musl|Darwin|Dispatch|Synchronization|Testing|XCTest)$'

package=$(swift package dump-package)

# One line a target: NAME PATH DEPENDENCY… (products by their name, which is their module's here).
targets=$(python3 -c '
import json, sys
for t in json.load(sys.stdin)["targets"]:
    if t["type"] in ("system", "plugin"):
        continue
    path = t.get("path") or ("Tests/" if t["type"] == "test" else "Sources/") + t["name"]
    deps = [next(iter(d.values()))[0] for d in t["dependencies"]]
    print(" ".join([t["name"], path] + deps))
' <<< "$package")

status=0
while read -r name path deps; do
    declared=" $deps "
    imported=" "
    # `import X`, `@testable import X`, `import struct X.Y`: the module X, with its line. Swift's
    # imports start their line (an indented `import` is another language's, in a string literal).
    while IFS=: read -r file line module; do
        [[ $module =~ $system ]] && continue
        [[ $module == "$name" ]] && continue
        imported+="$module "
        if [[ $declared != *" $module "* ]]; then
            echo "$file:$line: $name imports $module, which Package.swift does not declare for it"
            status=1
        fi
    done < <(grep -rnE --include='*.swift' '^(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*import[[:space:]]' "$path" \
        | sed -E 's/^([^:]+):([0-9]+):(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*import[[:space:]]+((struct|class|enum|func|protocol|var|let|typealias)[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*).*/\1:\2:\7/')
    # And the other way: every dependency declared is imported by some file of the target. An
    # edge nothing imports links for nothing, and hides where a module is really used.
    for dependency in $deps; do
        if [[ $imported != *" $dependency "* ]]; then
            echo "Package.swift: $name declares $dependency, which none of its files imports"
            status=1
        fi
    done
done <<< "$targets"

# Boundaries the layout promises (README.md, "Layout"): modules a target must not reach through
# any chain of dependencies. The output side and the actions runtime read no panel (no libudev,
# no mtdev, no frame assembler); the kernel's input values are free of C; the engine is pure.
python3 -c '
import json, sys
boundaries = {
    "GestureActionsRuntime": ["TouchInput", "CUdev", "CMtdev"],
    "VirtualDevices": ["TouchInput", "CUdev", "CMtdev"],
    "EvdevValues": ["CEvdev", "CUdev", "CMtdev", "CLinuxSupport", "TouchInput"],
    "GestureEngine": ["TouchInput", "EvdevValues", "CEvdev", "CUdev", "CMtdev", "CLinuxSupport", "Logging"],
}
deps = {t["name"]: [next(iter(d.values()))[0] for d in t["dependencies"]] for t in json.load(sys.stdin)["targets"]}
status = 0
for target, banned in boundaries.items():
    # Every path from the target, to name the chain that reaches a banned module.
    paths, todo = {target: [target]}, [target]
    while todo:
        name = todo.pop()
        for d in deps.get(name, []):
            if d not in paths:
                paths[d] = paths[name] + [d]
                todo.append(d)
    for module in banned:
        if module in paths:
            chain = " -> ".join(paths[module])
            print(f"Package.swift: {target} reaches {module} ({chain}), which it must not")
            status = 1
sys.exit(status)
' <<< "$package" || status=1

# README.md's layout table (the table under its "Layout" heading) names every target under Sources/
# and Plugins/ and no target that is not there: a newcomer reads the package's map there.
python3 -c '
import json, re, sys
targets = json.load(sys.stdin)["targets"]
expected = set()
for t in targets:
    if t["type"] == "test" or t.get("path"):
        continue
    expected.add(("Plugins/" if t["type"] == "plugin" else "Sources/") + t["name"])
lines = open("README.md").read().split("\n")
heading = next((i for i, l in enumerate(lines) if re.match(r"#+ +Layout *$", l)), None)
if heading is None:
    print("README.md: no \"Layout\" heading")
    sys.exit(1)
listed = set()
for l in lines[heading + 1:]:
    if l.startswith("#"):
        break
    if not l.startswith("|"):
        continue
    # The first cell: `Sources/A`, `B`, `C` names Sources/A, Sources/B and Sources/C.
    prefix = None
    for path in re.findall(r"`([^`]+)`", l.split("|")[1]):
        match = re.match(r"(Sources|Plugins)/([^/]+)/?$", path)
        if match:
            prefix = match.group(1)
            listed.add(prefix + "/" + match.group(2))
        elif prefix and "/" not in path:
            listed.add(prefix + "/" + path)
status = 0
for path in sorted(expected - listed):
    print(f"README.md: the layout table lacks {path}, a target in Package.swift")
    status = 1
for path in sorted(listed - expected):
    print(f"README.md: the layout table lists {path}, which Package.swift has no target for")
    status = 1
sys.exit(status)
' <<< "$package" || status=1

if [ "$status" -eq 0 ]; then echo "every import is declared in Package.swift, every declared dependency is imported, no target crosses a boundary, and README.md's layout table lists every target"; fi
exit "$status"
