"""Cut files into chunks an LLM can read alone: syntax units for code, paragraphs for text.

Why syntax boundaries: a chunk that starts mid-function is hard to read and hard to
rank (its name is in another chunk). The splitter is one generic algorithm over the
tree-sitter tree, not a table of rules per language:

* the children of a node cover the node's lines; each child takes the lines since
  the previous child (so a doc comment travels with the function under it);
* consecutive small children are merged while the group stays under the size limit
  ("small siblings merged": imports, constants, one-line helpers);
* a child too large on its own is split by recursing into *its* children — the
  statements of a body, the members of a class — so cuts fall between statements,
  never inside an expression; the first line of every node we descend through
  (``class Foo(Base):``, ``func (s *Server) Run() {``) becomes the chunk's ``scope``,
  the parent context shown with it;
* only a node with no children that is still too large (a giant string or literal)
  is cut into line windows.

Grammars come from the per-language wheels (``tree-sitter-python`` …), which carry
compiled parsers; nothing is downloaded. Starlark (BUILD, .bzl) uses
``tree-sitter-starlark``. A file whose language has no grammar, or whose grammar is
missing, is cut into line windows that end at blank lines.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from .tokenize import count_tokens

CHUNKER_VERSION = 4  # part of the index key: bump when boundaries change


# The default size limit. Why 250: on the co-change benchmark's held-out cases, chunks of
# at most 250 tokens beat 400 on file *and* hunk recall at 4k and 8k (docs/benchmarks.md,
# "Chunk size"): finer chunks let the ranking pick the part of a file the change is about
# and leave budget for more files. 175 found more files but fewer changed lines.
DEFAULT_CHUNK_TOKENS = 250


@dataclass(frozen=True)
class ChunkSettings:
    max_tokens: int = DEFAULT_CHUNK_TOKENS  # a chunk larger than this is split (when the syntax allows)
    min_tokens: int = DEFAULT_CHUNK_TOKENS * 3 // 8  # text windows end at a blank line once they are this big

    @classmethod
    def for_limit(cls, max_tokens: int) -> "ChunkSettings":
        """Settings for a size limit, with text windows ending at 3/8 of it (at least 20 tokens)."""
        return cls(max_tokens=max_tokens, min_tokens=max(20, max_tokens * 3 // 8))

    def key(self) -> str:
        return f"v{CHUNKER_VERSION}-{self.max_tokens}-{self.min_tokens}"


@dataclass
class Chunk:
    """Lines ``start_line..end_line`` (1-based, inclusive) of ``path``."""

    path: str
    start_line: int
    end_line: int
    kind: str = "block"  # the syntax node type for one definition; "block", "window"
    scope: str = ""  # enclosing definitions' first lines, outermost first, " > "-joined
    symbols: tuple[str, ...] = ()  # names defined in the chunk


@dataclass
class FileChunks:
    language: str
    chunks: list[Chunk]
    imports: list[str] = field(default_factory=list)  # module specifiers the file imports


# ---------------------------------------------------------------- languages
# extension or exact file name -> language
LANGUAGE_OF_EXT: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".bzl": "starlark", ".star": "starlark", ".bazel": "starlark", ".sky": "starlark",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".java": "java", ".rs": "rust",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".ipp": "cpp",
}
LANGUAGE_OF_NAME: dict[str, str] = {"BUILD": "starlark", "WORKSPACE": "starlark", "BUCK": "starlark"}

# markdown fence names for files without a grammar
FENCE_OF_EXT: dict[str, str] = {
    ".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".md": "markdown", ".mdx": "markdown",
    ".sh": "bash", ".bash": "bash", ".css": "css", ".scss": "scss", ".less": "less", ".html": "html",
    ".vue": "vue", ".svelte": "svelte", ".proto": "protobuf", ".sql": "sql", ".rb": "ruby", ".kt": "kotlin",
    ".swift": "swift", ".cs": "csharp", ".php": "php", ".xml": "xml", ".graphql": "graphql",
    # languages without a grammar here: still code, so never down-weighted as documentation
    ".scala": "scala", ".sc": "scala", ".kts": "kotlin", ".groovy": "groovy", ".gradle": "groovy",
    ".lua": "lua", ".ex": "elixir", ".exs": "elixir", ".erl": "erlang", ".hs": "haskell",
    ".ml": "ocaml", ".mli": "ocaml", ".clj": "clojure", ".cljs": "clojure", ".dart": "dart",
    ".pl": "perl", ".pm": "perl", ".r": "r", ".jl": "julia", ".zig": "zig", ".nim": "nim",
    ".mm": "objectivec", ".fs": "fsharp", ".ps1": "powershell", ".zsh": "bash", ".cmake": "cmake",
    ".tf": "hcl", ".hcl": "hcl", ".nix": "nix", ".sol": "solidity", ".elm": "elm", ".cu": "cuda",
}
# ...and by exact file name
FENCE_OF_NAME: dict[str, str] = {"Dockerfile": "dockerfile", "Makefile": "makefile", "GNUmakefile": "makefile",
                                 "Jenkinsfile": "groovy", "CMakeLists.txt": "cmake"}

# language -> (module, function returning the language pointer)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "starlark": ("tree_sitter_starlark", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
}

_IMPORT_TYPES = frozenset({
    "import_statement", "import_from_statement", "future_import_statement", "import_declaration",
    "use_declaration", "preproc_include", "extern_crate_declaration",
})
_NAME_HOLDERS = frozenset({"export_statement", "decorated_definition", "template_declaration", "ambient_declaration"})
_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration", "type_declaration", "const_declaration", "var_declaration"})

_parsers: dict[str, Any] = {}


def language_of(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    if name in LANGUAGE_OF_NAME or name.startswith(("BUILD.", "WORKSPACE.")) or name == "MODULE.bazel":
        return "starlark"
    dot = name.rfind(".")
    return LANGUAGE_OF_EXT.get(name[dot:].lower()) if dot > 0 else None


def fence_language(path: str) -> str:
    lang = language_of(path)
    if lang:
        return "python" if lang == "starlark" else lang
    name = path.rsplit("/", 1)[-1]
    if name in FENCE_OF_NAME:
        return FENCE_OF_NAME[name]
    dot = name.rfind(".")
    return FENCE_OF_EXT.get(name[dot:].lower(), "") if dot > 0 else ""


def _parser(language: str) -> Any | None:
    """A cached tree-sitter parser, or None when the grammar wheel is not installed."""
    if language in _parsers:
        return _parsers[language]
    parser = None
    try:
        import tree_sitter

        module, func = _GRAMMARS[language]
        lang = tree_sitter.Language(getattr(importlib.import_module(module), func)())
        parser = tree_sitter.Parser(lang)
    except Exception:  # missing wheel or ABI mismatch: fall back to windows, never crash
        parser = None
    _parsers[language] = parser
    return parser


# ---------------------------------------------------------------- entry point
def chunk_file(path: str, text: str, settings: ChunkSettings | None = None) -> FileChunks:
    """Chunks covering every non-blank line of ``text``, in file order."""
    settings = settings or ChunkSettings()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return FileChunks(language_of(path) or "", [])
    language = language_of(path)
    parser = _parser(language) if language else None
    if parser is None:
        return FileChunks(language or "", _trim(text_windows(path, lines, settings), lines))
    tree = parser.parse(text.encode("utf-8", errors="replace"))
    splitter = _Splitter(path, lines, settings)
    root = tree.root_node
    chunks = splitter.split(root.named_children, 1, len(lines), scope=())
    chunks = splitter.merge_small(_trim(chunks, lines))
    return FileChunks(language, chunks, _imports(root))


# ---------------------------------------------------------------- the splitter
class _Splitter:
    def __init__(self, path: str, lines: list[str], settings: ChunkSettings) -> None:
        self.path = path
        self.lines = lines
        self.settings = settings
        self._prefix = [0]
        for line in lines:  # chars per line (+1 for the newline): sizes are sums, in O(1)
            self._prefix.append(self._prefix[-1] + len(line) + 1)

    def size(self, start: int, end: int) -> int:
        """Approximate tokens of lines start..end (1-based, inclusive)."""
        return (self._prefix[end] - self._prefix[start - 1] + 3) // 4

    def split(self, children: list[Any], start: int, end: int, scope: tuple[str, ...], depth: int = 0) -> list[Chunk]:
        """Chunks covering lines start..end, cut only between ``children``."""
        if end < start:
            return []
        if depth > 40:  # pathological nesting: stop descending
            return line_windows(self.path, start, end, self.lines, self.settings, scope)
        # segments: (first line, last line, nodes), each child taking the lines since the previous one
        segments: list[tuple[int, int, list[Any]]] = []
        pos = start
        for child in children:
            child_end = min(end, child.end_point[0] + 1)
            if child.end_point[1] == 0 and child.end_point[0] > child.start_point[0]:
                child_end = min(end, child.end_point[0])  # ends at column 0 of the next line
            if child_end < pos:
                if segments:  # on the previous child's last line: same segment
                    s, e, nodes = segments[-1]
                    segments[-1] = (s, e, nodes + [child])
                continue
            segments.append((pos, child_end, [child]))
            pos = child_end + 1
        if pos <= end:
            if segments:
                s, _, nodes = segments[-1]
                segments[-1] = (s, end, nodes)
            else:
                segments.append((start, end, []))

        out: list[Chunk] = []
        group: list[tuple[int, int, list[Any]]] = []
        limit = self.settings.max_tokens

        def flush() -> None:
            if group:
                nodes = [n for seg in group for n in seg[2]]
                out.append(self._chunk(group[0][0], group[-1][1], nodes, scope))
                group.clear()

        for seg in segments:
            s, e, nodes = seg
            if self.size(s, e) > limit:
                # a short lead-in (signature, decorators, comments) stays with the first inner chunk
                if group and self.size(group[0][0], group[-1][1]) <= limit // 4:
                    s = group[0][0]
                    group.clear()
                flush()
                out.extend(self._split_large(s, e, nodes, scope, depth))
                continue
            if group and self.size(group[0][0], e) > limit:
                flush()
            group.append(seg)
        flush()
        return out

    def _split_large(self, start: int, end: int, nodes: list[Any], scope: tuple[str, ...], depth: int) -> list[Chunk]:
        """A segment over the limit: descend into its largest node's children, else line windows."""
        if nodes:
            node = max(nodes, key=lambda n: (n.end_point[0] - n.start_point[0], n.end_byte - n.start_byte))
            inner = scope
            while True:
                if _is_definition(node):
                    head = self.lines[node.start_point[0]].strip()[:120]
                    if head and (not inner or inner[-1] != head):
                        inner = inner + (head,)
                kids = node.named_children
                if len(kids) == 1 and kids[0].named_children:
                    node = kids[0]  # a wrapper with one child (export, decorator, body) is transparent
                    continue
                break
            if len(kids) >= 2:
                return self.split(list(kids), start, end, inner, depth + 1)
            scope = inner
        return line_windows(self.path, start, end, self.lines, self.settings, scope)

    def _chunk(self, start: int, end: int, nodes: list[Any], scope: tuple[str, ...]) -> Chunk:
        names: list[str] = []
        for n in nodes:
            names.extend(_names(n))
        kind = nodes[0].type if len(nodes) == 1 else "block"
        return Chunk(self.path, start, end, kind, " > ".join(scope), tuple(dict.fromkeys(names)))

    def merge_small(self, chunks: list[Chunk]) -> list[Chunk]:
        """Join neighbours that fit together when they share a scope or one is a scrap."""
        out: list[Chunk] = []
        scrap = max(1, self.settings.max_tokens // 10)
        for c in chunks:
            if out:
                prev = out[-1]
                fits = self.size(prev.start_line, c.end_line) <= self.settings.max_tokens
                small = min(self.size(prev.start_line, prev.end_line), self.size(c.start_line, c.end_line)) <= scrap
                if fits and (prev.scope == c.scope or small):
                    kind = prev.kind if prev.kind == c.kind else "block"
                    scope = prev.scope if prev.scope == c.scope else _common_scope(prev.scope, c.scope)
                    out[-1] = Chunk(self.path, prev.start_line, c.end_line, kind, scope,
                                    tuple(dict.fromkeys(prev.symbols + c.symbols)))
                    continue
            out.append(c)
        return out


def _common_scope(a: str, b: str) -> str:
    pa, pb = a.split(" > "), b.split(" > ")
    common = []
    for x, y in zip(pa, pb):
        if x != y:
            break
        common.append(x)
    return " > ".join(common)


def _is_definition(node: Any) -> bool:
    return node.child_by_field_name("name") is not None or node.type in _NAME_HOLDERS or \
        node.type.endswith(("_definition", "_declaration", "_item", "_specifier"))


def _names(node: Any, depth: int = 0) -> list[str]:
    """Names a definition introduces (function, class, const, type), through export wrappers."""
    if depth > 3 or node.type == "keyword_argument":
        return []
    if node.type == "expression_statement" and node.named_children and node.named_children[0].type == "call":
        return _target_name(node.named_children[0])  # BUILD: go_library(name = "x", ...)
    name = node.child_by_field_name("name")
    if name is not None and name.type not in ("string", "template_string"):
        return [name.text.decode("utf-8", "replace")]
    if node.type in _NAME_HOLDERS:
        inner = node.child_by_field_name("declaration") or node.child_by_field_name("definition")
        kids = [inner] if inner is not None else node.named_children
        return [n for k in kids for n in _names(k, depth + 1)]
    if node.type in _DECLARATIONS:
        return [n for k in node.named_children for n in _names(k, depth + 1)]
    if node.type in ("function_definition", "declaration"):  # C/C++: the name sits in the declarator
        decl = node.child_by_field_name("declarator")
        while decl is not None and decl.child_by_field_name("declarator") is not None:
            decl = decl.child_by_field_name("declarator")
        if decl is not None and decl.type in ("identifier", "field_identifier", "qualified_identifier"):
            return [decl.text.decode("utf-8", "replace")]
    return []


def _target_name(call: Any) -> list[str]:
    """The ``name = "..."`` argument of a Starlark/Python call (a Bazel target's name)."""
    args = call.child_by_field_name("arguments")
    for arg in args.named_children if args is not None else ():
        key = arg.child_by_field_name("name")
        value = arg.child_by_field_name("value")
        if arg.type == "keyword_argument" and key is not None and key.text == b"name" \
                and value is not None and value.type == "string":
            return [value.text.decode("utf-8", "replace").strip("'\"")]
    return []


def _imports(root: Any) -> list[str]:
    """Module specifiers imported at top level (string literals of import statements)."""
    out: list[str] = []
    for child in root.named_children:
        node = child
        if node.type == "expression_statement" and node.named_children:  # Starlark load("//x:y.bzl", ...)
            call = node.named_children[0]
            fn = call.child_by_field_name("function")
            if call.type == "call" and fn is not None and fn.text == b"load":
                args = call.child_by_field_name("arguments")
                if args is not None and args.named_children and args.named_children[0].type == "string":
                    out.append(args.named_children[0].text.decode("utf-8", "replace").strip("'\""))
            continue
        if node.type == "export_statement":  # export { x } from "./y"
            src = node.child_by_field_name("source")
            if src is not None:
                out.append(src.text.decode("utf-8", "replace").strip("'\"`"))
            continue
        if node.type not in _IMPORT_TYPES:
            continue
        src = node.child_by_field_name("source") or node.child_by_field_name("path")
        if src is not None:
            out.append(src.text.decode("utf-8", "replace").strip("'\"`<>"))
            continue
        if node.type in ("import_from_statement",):
            mod = node.child_by_field_name("module_name")
            if mod is not None:
                out.append(mod.text.decode("utf-8", "replace"))
            continue
        if node.type == "import_statement":  # python: import a.b
            out.extend(k.text.decode("utf-8", "replace") for k in node.named_children if k.type == "dotted_name")
            continue
        # Go import blocks, Java/Rust paths: take every string / scoped path inside
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type in ("interpreted_string_literal", "string_literal", "scoped_identifier", "scoped_use_list"):
                out.append(n.text.decode("utf-8", "replace").strip("'\"`"))
            elif n.type not in ("comment",):
                stack.extend(reversed(n.named_children))
    return list(dict.fromkeys(o for o in out if o))


# ---------------------------------------------------------------- windows
def line_windows(path: str, start: int, end: int, lines: list[str], settings: ChunkSettings,
                 scope: tuple[str, ...] = (), kind: str = "window") -> list[Chunk]:
    """Cut lines start..end into pieces: at a blank line once a piece has ``min_tokens``,
    anywhere once it reaches ``max_tokens``."""
    out: list[Chunk] = []
    label = " > ".join(scope)
    cur = start
    size = 0
    for i in range(start, end + 1):
        line = lines[i - 1]
        size += (len(line) + 1 + 3) // 4
        blank = not line.strip()
        if (blank and size >= settings.min_tokens) or size >= settings.max_tokens:
            out.append(Chunk(path, cur, i, kind, label))
            cur = i + 1
            size = 0
    if cur <= end:
        out.append(Chunk(path, cur, end, kind, label))
    return out


def text_windows(path: str, lines: list[str], settings: ChunkSettings) -> list[Chunk]:
    return line_windows(path, 1, len(lines), lines, settings)


def _trim(chunks: list[Chunk], lines: list[str]) -> list[Chunk]:
    """Drop leading/trailing blank lines of each chunk and chunks that are all blank."""
    out: list[Chunk] = []
    for c in chunks:
        s, e = c.start_line, c.end_line
        while s <= e and not lines[s - 1].strip():
            s += 1
        while e >= s and not lines[e - 1].strip():
            e -= 1
        if s <= e:
            c.start_line, c.end_line = s, e
            out.append(c)
    return out


def chunk_text(lines: list[str], chunk: Chunk) -> str:
    return "\n".join(lines[chunk.start_line - 1:chunk.end_line])


def exact_tokens(lines: list[str], chunk: Chunk, counter: Callable[[str], int] = count_tokens) -> int:
    return counter(chunk_text(lines, chunk))
