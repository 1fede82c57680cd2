"""``ctxsel mcp``: the Python API served to agents over the Model Context Protocol (stdio).

Two layers, so the logic can be tested without a protocol round trip:

* ``CtxselTools`` answers the four questions by calling the very functions the CLI
  commands call (``radius_question``/``radius_json``, ``owners_question``, ``select``),
  so each ``Answer.document`` is the JSON value ``--format json`` prints;
  user errors stay ``UserError`` with the CLI's message.
* ``build_server`` wraps them as MCP tools with input schemas an agent can act on and
  turns every failure into a tool error (``isError``), so one bad call never takes
  the server down.

The ``mcp`` SDK costs ~0.75 s to import (``python -X importtime``), so it is imported inside ``build_server``
only: ``ctxsel tests`` never pays for it, and ``CtxselTools`` works without it.
"""

# No ``from __future__ import annotations``: the SDK reads the tool signatures at run
# time, and their Annotated types are locals of ``build_server``.
import io
import json
import os
import sys
import threading
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Sequence

from .errors import CtxselError, UserError
from .render import pretty_json, to_json

if TYPE_CHECKING:  # pragma: no cover
    from .select import SelectRequest
    from .workspace import Workspace

SERVER_NAME = "ctxsel"
# blast_radius nodes per answer. The most depended-on library of the 20,000-target synthetic
# workspace (bench/bazel_synth.py) has a 2.8 MB radius; its 200 nearest nodes are 38 KB.
DEFAULT_LIMIT = 200

INSTRUCTIONS = """\
ctxsel answers questions about a monorepo from its build graph (Bazel, pnpm/npm/yarn
workspaces, Nx, Turborepo). Start from what changed or what you are about to edit:
- blast_radius: what depends on these targets/files/changes (nearest first, with the path why);
- affected_tests: the test targets to run, and the repo's own command to run them;
- select_context: the few thousand tokens of code that matter for a task, packed to a budget;
- owners: the CODEOWNERS owners of paths.
Targets are build labels (//pkg:lib, //pkg/...), package/project names, or repo-relative file paths.
"""


@dataclass
class Answer:
    """One tool's answer: ``document`` is what ``--format json`` prints for the same question."""

    document: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    markdown: str | None = None  # select_context only: the packed context


class RepoJail:
    """The directory the server was started on; per-call directories and paths must stay inside it.

    Paths are resolved (symlinks included) before the check, so ``sub/../../etc`` and a
    symlink pointing out of the repository are both refused.
    """

    def __init__(self, root: str | Path) -> None:
        start = Path(root).expanduser()
        if not start.is_dir():
            raise UserError(f"no such directory: {start}")
        self.root = start.resolve()

    def directory(self, repo: str | None) -> Path:
        """The directory a call runs in: the root, or ``repo`` (relative to the root) inside it."""
        if not repo:
            return self.root
        target = self.inside(repo, what="repo")
        if not target.is_dir():
            raise UserError(f"no such directory: {repo}")
        return target

    def check(self, paths: Sequence[str], base: Path, what: str = "path") -> None:
        """Refuse any of ``paths`` (relative to ``base``) that resolves outside the root."""
        for p in paths:
            self.inside(p, what=what, base=base)

    def check_targets(self, targets: Sequence[str], base: Path) -> None:
        """Like ``check`` for the targets that name files or directories (labels and package names pass)."""
        for t in targets:
            if not t.startswith(("//", "@")) and os.path.lexists(Path(t) if os.path.isabs(t) else base / t):
                self.inside(t, what="target", base=base)

    def inside(self, path: str, what: str, base: Path | None = None) -> Path:
        try:
            candidate = Path(path).expanduser()
            if not candidate.is_absolute():
                candidate = (base or self.root) / candidate
            resolved = candidate.resolve()
        except (OSError, RuntimeError, ValueError) as exc:
            # a NUL byte (ValueError), a symlink loop (RuntimeError), "~nosuchuser": a bad
            # argument, answered as one instead of as an internal error
            raise UserError(f"{what} {path!r} cannot be resolved: {exc}") from None
        if resolved != self.root and self.root not in resolved.parents:
            raise UserError(f"{what} {path!r} is outside the repository this server was started on ({self.root})")
        return resolved


class CtxselTools:
    """The MCP tools as plain methods, each asking exactly what the matching CLI command asks.

    A call runs with the call's directory as the working directory (calls are
    serialised), so relative paths mean what they mean to ``ctxsel`` run there.
    """

    def __init__(
        self,
        repo: str | Path,
        adapter: str = "auto",
        source: str = "auto",
        query_file: str | None = None,
        use_cache: bool = True,
    ) -> None:
        # The tools call the CLI commands' own functions; importing the CLI first registers
        # the command modules in the order they expect (they import each other).
        from . import cli  # noqa: F401

        self.jail = RepoJail(repo)
        self.adapter = adapter
        self.source = source
        # absolute now: calls run in their own directory (see ``_call``)
        self.query_file = os.path.abspath(query_file) if query_file else None
        self.use_cache = use_cache
        # Tool calls arrive on worker threads; the working directory is per process and
        # the graph cache and chunk index are written in place, so one call at a time.
        self._lock = threading.Lock()

    # ------------------------------------------------------------ plumbing
    def options(self, directory: Path) -> Any:
        """The CLI's global options for a run in ``directory``."""
        from .cli import GlobalOptions

        return GlobalOptions(
            repo=str(directory), adapter=self.adapter, source=self.source, query_file=self.query_file,
            use_cache=self.use_cache, quiet=True,
        )

    def open(self, directory: Path) -> "Workspace":
        """The workspace at or above ``directory``, as ``ctxsel --repo DIRECTORY`` opens it.

        No extra check is needed for a workspace found *above* the server's root: walking
        up from inside the root finds either a workspace inside it or the very workspace
        the server's own root belongs to.
        """
        return self.options(directory).open()

    def _call(self, repo: str | None, fn: Callable[[Path], Answer]) -> Answer:
        with self._lock:
            directory = self.jail.directory(repo)
            try:
                previous: str | None = os.getcwd()
            except OSError:  # the client started us in a directory that is gone
                previous = None
            os.chdir(directory)
            try:
                return fn(directory)
            finally:
                os.chdir(previous or self.jail.root)

    @staticmethod
    def document(payload: dict[str, Any]) -> dict[str, Any]:
        """Exactly what ``--format json`` prints, parsed: the CLI and MCP cannot drift."""
        return json.loads(to_json(payload, compact=True))

    # ------------------------------------------------------------ tools
    def blast_radius(self, question: "GraphQuestion") -> Answer:
        """``ctxsel blast-radius TARGETS... [--since ...] [--depth] [--owner] [--explain] --format json``."""
        from .commands.graph_queries import radius_json, radius_question

        def run(directory: Path) -> Answer:
            ws = self._open_for(question, directory)
            result, changes, _ = radius_question(ws, list(question.targets), _selectors(question), question.depth,
                                                 list(question.owners), question.limit)
            body = radius_json(result, changes, question.explain)
            return Answer(self.document(body), _warnings(result.warnings, changes))

        return self._call(question.repo, run)

    def affected_tests(self, question: "GraphQuestion") -> Answer:
        """``ctxsel tests TARGETS... [--since ...] [--depth] [--owner] [--explain] --format json``."""
        from .commands.changes import explain_rows
        from .commands.graph_queries import tests_json

        def run(directory: Path) -> Answer:
            ws = self._open_for(question, directory)
            sel, changes = self._ask(partial(ws.tests, target=tuple(question.run_targets)), ws, question)
            paths = ws.graph.paths_to(sel.roots, question.depth, only=sel.tests) if question.explain else {}
            why = explain_rows(sel.tests, paths, changes) if question.explain else None
            return Answer(self.document(tests_json(sel, changes, why)), _warnings(sel.warnings, changes))

        return self._call(question.repo, run)

    def owners(self, paths: Sequence[str], repo: str | None = None) -> Answer:
        """``ctxsel owners PATHS... --format json``."""
        from .commands.owners import owners_question

        def run(directory: Path) -> Answer:
            if not paths:
                raise UserError("give paths to look up, or --unowned DIR", hint="ctxsel owners src/app.ts --format json")
            self.jail.check(paths, directory)
            report = owners_question(self.options(directory), list(paths))
            return Answer(self.document(report.as_json()), list(report.warnings))

        return self._call(repo, run)

    def select_context(self, request: "SelectRequest", repo: str | None = None) -> Answer:
        """``ctxsel select ... --format json`` (the document) and ``--format markdown`` (``Answer.markdown``)."""
        from .commands.select import _workspace_options
        from .select import select

        def run(directory: Path) -> Answer:
            self.jail.check_targets(request.targets, directory)
            self.jail.check(request.seeds, directory, what="seed")
            self.jail.check(request.files, directory)
            result = select(str(directory), request, _workspace_options(self.options(directory)))
            return Answer(self.document(result.as_json()), list(result.warnings), result.markdown())

        return self._call(repo, run)

    # ------------------------------------------------------------ shared by the graph tools
    def _open_for(self, question: "GraphQuestion", directory: Path) -> "Workspace":
        self.jail.check_targets(question.targets, directory)
        self.jail.check(question.files, directory)
        return self.open(directory)

    @staticmethod
    def _ask(ask: Callable[..., Any], ws: "Workspace", q: "GraphQuestion") -> tuple[Any, Any]:
        from .commands.graph_queries import graph_question

        result, changes, _ = graph_question(ask, ws, list(q.targets), _selectors(q), q.depth, list(q.owners))
        return result, changes


@dataclass
class GraphQuestion:
    """What ``blast_radius`` and ``affected_tests`` take: the arguments of the CLI commands."""

    targets: Sequence[str] = ()
    since: str | None = None
    base: str | None = None
    head: str | None = None
    staged: bool = False
    files: Sequence[str] = ()
    depth: int | None = None
    owners: Sequence[str] = ()
    explain: bool = False
    repo: str | None = None
    limit: int | None = None  # blast_radius only: the nearest N (``--limit``)
    #: affected_tests only: the targets/tasks/scripts to run instead of ``test`` (``--target``)
    run_targets: Sequence[str] = ()


def _selectors(q: GraphQuestion) -> Any:
    """The question's change selectors, as the CLI's options build them."""
    from .commands.changes import ChangeSelectors

    return ChangeSelectors(q.since, q.base, q.head, q.staged, list(q.files))


def _warnings(warnings: Sequence[str], changes: Any) -> list[str]:
    """What the CLI prints on stderr for this answer, deduplicated."""
    out = list(warnings)
    if changes is not None:
        out += list(changes.warnings)
        out += [f"global change: {g}" for g in changes.global_files]
    return list(dict.fromkeys(out))


# ---------------------------------------------------------------- the MCP layer
def build_server(tools: CtxselTools) -> Any:
    """An ``MCPServer`` exposing ``tools``; every failure becomes a tool error, never a crash."""
    try:
        from typing import Annotated

        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.tools import Tool
        from mcp_types import CallToolResult, TextContent, ToolAnnotations
        from pydantic import Field
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise UserError(
            f"the MCP server needs the 'mcp' package ({exc.name} is missing)",
            hint="pip install 'ctxsel[mcp]'",
        ) from None

    from . import __version__
    from .render import json_schema

    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    registered: list[Any] = []

    def register(fn: Callable[..., Any], name: str, schema: str, description: str | None = None) -> None:
        """A read-only tool whose advertised output schema is the CLI's JSON Schema file: clients
        (the official one validates structuredContent against it) know the exact shape."""
        tool = Tool.from_function(fn, name=name, description=description, annotations=read_only)
        tool.fn_metadata = tool.fn_metadata.model_copy(update={"output_schema": json_schema(schema)})
        registered.append(tool)

    # Argument types with the descriptions an agent reads in the tool's input schema.
    Targets = Annotated[list[str], Field(description=(
        "What to start from: build labels (//pkg:lib, //pkg, //pkg/...), package or project names (@scope/web), "
        "or file/directory paths relative to the repository root. May be empty when a change is given "
        "(since, base/head, staged or files)."))]
    Since = Annotated[str | None, Field(description=(
        "A git ref: the change is everything between merge-base(ref, HEAD) and the working tree, "
        "uncommitted and untracked files included (e.g. 'main', 'origin/main')."))]
    Base = Annotated[str | None, Field(description="A git ref: the change is the commits merge-base(base, head)..head (a pull request).")]
    Head = Annotated[str | None, Field(description="With base: the last commit of the change (default HEAD).")]
    Staged = Annotated[bool, Field(description="The change is what is staged in the git index (what `git commit` would record).")]
    Files = Annotated[list[str], Field(description="The change is these files (relative to the repository root); no git needed.")]
    Depth = Annotated[int | None, Field(ge=0, description="Only nodes within this many dependency edges of the inputs (0 = the inputs themselves). Omit for all.")]
    Owners = Annotated[list[str], Field(description="Keep only what these CODEOWNERS owners own (@user, @org/team or an email); the answer counts what was dropped.")]
    Explain = Annotated[bool, Field(description="Also give, for each answer, the changed files behind it ('because').")]
    Limit = Annotated[int | None, Field(ge=0, description=(
        f"At most this many affected nodes, nearest first (default {DEFAULT_LIMIT}; `truncated` counts the rest). "
        "A core library's radius can be thousands of nodes: narrow with depth, or raise this."))]
    Target = Annotated[str | None, Field(description=(
        "The target/task/script to run instead of 'test' (e.g. 'lint', 'unit-test', 'typecheck'; several "
        "comma-separated, as `nx run-many -t a,b`): the affected nodes having it, and the tool's command "
        "running it (nx run-many -t, turbo run, pnpm/npm/yarn run). Not for Bazel. Omit for tests."))]
    Repo = Annotated[str | None, Field(description=(
        "A directory inside the repository this server was started on, relative to it, to ask about instead "
        "(e.g. one workspace of several). Omit to use the server's repository."))]

    def respond(ask: Callable[[], Answer], blocks: Callable[[Answer], list[str]] | None = None) -> Any:
        try:
            answer = ask()
        except CtxselError as exc:  # the CLI's message, as `ctxsel: error: ...` prints it, and the warnings before it
            texts = [exc.render()] + [f"warning: {w}" for w in exc.warnings] if isinstance(exc, UserError) else [str(exc)]
            return CallToolResult(content=[TextContent(type="text", text=t) for t in texts], is_error=True)
        except Exception as exc:  # a bug costs one call, never the agent's whole session
            text = f"internal error: {type(exc).__name__}: {exc}"
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        texts = blocks(answer) if blocks else [pretty_json(answer.document)]
        texts += [f"warning: {w}" for w in answer.warnings]
        return CallToolResult(content=[TextContent(type="text", text=wire_text(t)) for t in texts],
                              structured_content=wire_document(answer.document))

    def affected_tests(
        targets: Targets = [], since: Since = None, base: Base = None, head: Head = None, staged: Staged = False,
        files: Files = [], depth: Depth = None, owner: Owners = [], explain: Explain = False, repo: Repo = None,
        target: Target = None,
    ) -> dict[str, Any]:
        from .commands.graph_queries import target_names

        question = GraphQuestion(targets, since, base, head, staged, files, depth, owner, explain, repo,
                                 run_targets=target_names([target] if target else None))
        return respond(lambda: tools.affected_tests(question))

    # blast_radius takes the same arguments plus ``limit`` (its answer can be huge; the tests' cannot
    # be cut without making `command` lie)
    def blast_radius(
        targets: Targets = [], since: Since = None, base: Base = None, head: Head = None, staged: Staged = False,
        files: Files = [], depth: Depth = None, owner: Owners = [], explain: Explain = False, repo: Repo = None,
        limit: Limit = DEFAULT_LIMIT,
    ) -> dict[str, Any]:
        question = GraphQuestion(targets, since, base, head, staged, files, depth, owner, explain, repo, limit)
        return respond(lambda: tools.blast_radius(question))

    register(blast_radius, "blast_radius", "blast-radius", (
        "Everything that transitively depends on the given targets or on a git change, nearest first.\n\n"
        "Each affected node has its kind, its distance in dependency edges, and `path`: the chain of "
        "dependencies from it back to the input that put it in the radius. Use it before an edit to see "
        "what the edit can break. Same answer as `ctxsel blast-radius --format json`."))
    register(affected_tests, "affected_tests", "tests", (
        "The test targets that a change to the given targets (or a git change) could break, and `command`: "
        "the repository's own command (bazel test, pnpm --filter, nx run-many, turbo run) that runs exactly "
        "those tests. Run it to verify an edit instead of the whole suite. "
        "Same answer as `ctxsel tests --format json`."))

    def select_context(
        query: Annotated[str, Field(description=(
            "The task in words and identifiers, e.g. 'retry fetchUser on timeout'. "
            "May be empty when seeds, targets or a change are given."))] = "",
        targets: Targets = [],
        seeds: Annotated[list[str], Field(description=(
            "Files you are working on (relative to the repository root); their neighbours in the build graph "
            "and in git history rank first."))] = [],
        since: Since = None, base: Base = None, head: Head = None, staged: Staged = False, files: Files = [],
        owner: Owners = [],
        budget: Annotated[int | None, Field(gt=0, description="Hard token budget of the packed context (never exceeded). Omit for 8000.")] = None,
        scope: Annotated[str | None, Field(description="Candidate files: 'repo' (all, ranked with graph signals), 'graph' (changed nodes, dependents, dependencies) or 'blast-radius'. Omit for the repository's default.")] = None,
        repo: Repo = None,
    ) -> dict[str, Any]:
        """The code that matters for a task, chosen with the build graph and packed into a token budget.

        The first text block is markdown, one `### path · lines a-b` section per chunk, most
        relevant first: put it right before the task. The second lists the chunks (path, lines,
        tokens, score, reasons). Open whole files yourself for anything a chunk only mentions.
        Same answer as `ctxsel select --format json` / `--format markdown`."""

        def blocks(answer: Answer) -> list[str]:
            doc = answer.document
            listing = {k: v for k, v in doc.items() if k != "chunks"}
            listing["chunks"] = [{k: v for k, v in c.items() if k != "text"} for c in doc.get("chunks", [])]
            return [answer.markdown or "(nothing selected)", pretty_json(listing)]

        from .select import SelectRequest

        request = SelectRequest(query=query, targets=targets, seeds=seeds, since=since, base=base, head=head,
                                staged=staged, files=files, owners=owner, scope=scope,
                                **({"budget": budget} if budget is not None else {}))
        return respond(lambda: tools.select_context(request, repo), blocks)

    def owners(
        paths: Annotated[list[str], Field(min_length=1, description="Files or directories, relative to the repository root (they need not exist).")],
        repo: Repo = None,
    ) -> dict[str, Any]:
        """The CODEOWNERS owners of each path (@user, @org/team or an email; [] = unowned), as GitHub
        or GitLab computes them, with the CODEOWNERS line that decided. Use it to know whose code an
        edit touches. Same answer as `ctxsel owners --format json`."""
        return respond(lambda: tools.owners(paths, repo))

    register(select_context, "select_context", "select")
    register(owners, "owners", "owners")
    return MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, version=__version__, log_level="WARNING", tools=registered)


def serve(tools: CtxselTools) -> None:
    """Serve over stdin/stdout until the client closes the pipe."""
    import anyio

    anyio.run(_serve_stdio, build_server(tools))


async def _serve_stdio(server: Any) -> None:
    """``MCPServer.run("stdio")``, with these differences that keep a client from losing answers.

    * A line that is not a JSON-RPC message gets a JSON-RPC error (-32700 parse error,
      -32600 invalid request). The SDK's stdio transport hands such a line to the server as
      an exception, which it only logs at debug level: the client would wait forever.
    * When stdin closes, the requests already read are answered before the server stops.
      The SDK cancels them, so ``ctxsel mcp < requests.jsonl`` dropped every answer still
      being computed (a ``select_context`` behind a quick ``owners``).
    * A request whose id MCP does not allow (``1.5``, ``null``, ``true``: MCP ids are strings
      or integers) gets -32600 too. The SDK reads such a line as a notification (the id is
      dropped as an unknown field) and never answers it, so the client waited forever. Seeing
      the id needs the raw line, so ctxsel reads stdin itself (``read_message``) and gives
      the SDK's transport only stdout.
    * A ``tools/call`` naming no tool of this server is a protocol error (-32602, "Unknown
      tool: NAME"), as the MCP spec's tools page shows it (2025-06-18 and 2025-11-25); the
      SDK answered it as a tool result with ``isError``, the shape for a tool that ran and failed.
    """
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    lowlevel = getattr(server, "_lowlevel_server", None)  # what MCPServer.run_stdio_async runs
    if lowlevel is None:  # an SDK that moved it: serve as it does, without the error answers
        await server.run_stdio_async()
        return
    wire = anyio.wrap_file(io.TextIOWrapper(_take_stdin(), encoding="utf-8", errors="replace"))
    async with stdio_server(stdin=_NoLines()) as (unused, write_stream):  # type: ignore[arg-type]
        unused.close()  # the SDK's reader of _NoLines: never read
        send, receive = anyio.create_memory_object_stream(0)
        answers_in, answers_out = anyio.create_memory_object_stream(0)
        pending = PendingRequests()

        tool_names = {tool.name for tool in await server.list_tools()}

        async def forward_requests() -> None:
            async with send, wire:
                async for line in wire:
                    item = read_message(line)
                    if isinstance(item, SessionMessage):
                        item = unknown_tool_error(item.message, tool_names) or item
                    if isinstance(item, SessionMessage):
                        pending.read(item.message)
                        await send.send(item)
                    else:
                        await write_stream.send(SessionMessage(item))
                while pending:  # end of input: let the server finish what it has
                    await anyio.sleep(0.01)

        async def forward_answers() -> None:  # the last writer: stdio_server stops when this closes
            async with answers_out, write_stream:
                async for item in answers_out:
                    pending.answered(item.message)
                    await write_stream.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(forward_requests)
            tg.start_soon(forward_answers)
            async with answers_in:
                await lowlevel.run(receive, answers_in, lowlevel.create_initialization_options())


class _NoLines:
    """The stdin handed to the SDK's stdio transport: no lines (ctxsel reads the wire itself)."""

    def __aiter__(self) -> "_NoLines":
        return self

    async def __anext__(self) -> str:
        raise StopAsyncIteration


def _take_stdin() -> BinaryIO:
    """The client's pipe on a private descriptor, with fd 0 pointed at the null device.

    What the SDK's transport does for the stdin it reads: a child process (git, bazel,
    pnpm) that reads its stdin gets EOF instead of eating protocol messages.
    """
    try:
        private = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
    except OSError:  # no fd 0 to move: read it in place
        return sys.stdin.buffer
    os.dup2(null, 0)
    os.close(null)
    return os.fdopen(private, "rb")


def read_message(line: str) -> Any:
    """One line from the client: a ``SessionMessage`` for the server, or the ``JSONRPCError`` answering it.

    Parsed exactly as the SDK's stdio transport parses it; what it rejects becomes
    ``malformed_message_error``, and a request it would take for a notification because
    its ``id`` is one MCP does not allow becomes an invalid request (id null: JSON-RPC's
    answer when the request's id cannot be used).
    """
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as exc:
        return malformed_message_error(exc)
    if isinstance(message, types.JSONRPCNotification):
        body = json.loads(line)  # valid JSON: the adapter just read it
        # a "notifications/..." method stays the notification it names (the SDK's reading):
        # answering it would lose it, and clients that send `"id": null` on one work today
        if isinstance(body, dict) and "id" in body and not message.method.startswith("notifications/"):
            return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
                code=types.INVALID_REQUEST,
                message=f"Invalid Request: id: must be a string or an integer (MCP), not {json.dumps(body['id'])[:40]}"))
    return SessionMessage(message)


def unknown_tool_error(message: Any, tool_names: set[str]) -> Any:
    """The ``JSONRPCError`` answering a ``tools/call`` of a tool not in ``tool_names``, else None."""
    import mcp_types as types

    if not isinstance(message, types.JSONRPCRequest) or message.method != "tools/call":
        return None
    name = (message.params or {}).get("name")
    if not isinstance(name, str) or name in tool_names:  # no name at all: the SDK answers -32602 itself
        return None
    return types.JSONRPCError(jsonrpc="2.0", id=message.id, error=types.ErrorData(
        code=types.INVALID_PARAMS, message=f"Unknown tool: {name}"))


class PendingRequests:
    """The ids of the requests read from the client and not answered yet.

    A request the client cancels (``notifications/cancelled``) gets no answer, by the
    protocol, so it stops being pending too; notifications never are.
    """

    def __init__(self) -> None:
        self._ids: set[tuple[str, Any]] = set()

    def __bool__(self) -> bool:
        return bool(self._ids)

    def read(self, message: Any) -> None:
        body = getattr(message, "root", message)  # JSONRPCMessage is a RootModel in some SDKs
        request_id = getattr(body, "id", None)
        if request_id is not None and getattr(body, "method", None) is not None:
            self._ids.add(_id_key(request_id))
        elif getattr(body, "method", None) == "notifications/cancelled":
            params = getattr(body, "params", None) or {}
            cancelled = params.get("requestId") if isinstance(params, dict) else getattr(params, "request_id", None)
            if cancelled is not None:
                self._ids.discard(_id_key(cancelled))

    def answered(self, message: Any) -> None:
        body = getattr(message, "root", message)
        request_id = getattr(body, "id", None)
        if request_id is not None and getattr(body, "method", None) is None:  # a response or an error
            self._ids.discard(_id_key(request_id))


def wire_text(text: str) -> str:
    """``text`` as UTF-8 can carry it: a file name that is not UTF-8 (``caf\\xe9.txt``, kept as the
    lone surrogate ``\\udce9`` so it matches the file on disk) becomes U+FFFD. The SDK encodes
    each answer after the tool returned, so one such name made the server die mid-answer."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")  # \\udc80-\\udcff: the byte the name had
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogatepass")  # any other lone surrogate
    return raw.decode("utf-8", "replace")


def wire_document(document: dict[str, Any]) -> dict[str, Any]:
    """``wire_text`` for every string of a JSON document (only when one needs it)."""
    text = json.dumps(document, ensure_ascii=False)
    safe = wire_text(text)
    return document if safe is text else json.loads(safe)


def _id_key(request_id: Any) -> tuple[str, Any]:
    """JSON-RPC ids 1 and "1" are different requests."""
    return (type(request_id).__name__, request_id)


def malformed_message_error(exc: Exception) -> Any:
    """The JSON-RPC error answering a line the transport could not read as a message.

    Not JSON at all is a parse error with id null; JSON that is no valid message (a batch,
    a number, ``params`` that are not an object) is an invalid request, with the request's
    id when it has a usable one (JSON-RPC 2.0, section 5.1).
    """
    from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError

    errors: list[dict[str, Any]] = []
    try:
        errors = list(exc.errors())  # type: ignore[attr-defined]  # pydantic's ValidationError
    except Exception:  # not a validation error: nothing more to say about it
        pass
    if not errors or any(e.get("type") == "json_invalid" for e in errors):
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message="Parse error"))
    request_id: Any = None
    for e in errors:
        value = e.get("input")
        if isinstance(value, dict) and isinstance(value.get("id"), (str, int)) and not isinstance(value.get("id"), bool):
            request_id = value["id"]
            break
    first = errors[0]
    where = ".".join(str(x) for x in first.get("loc", ())[1:]) or "message"
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(
        code=INVALID_REQUEST, message=f"Invalid Request: {where}: {first.get('msg', 'not a JSON-RPC message')}"))
