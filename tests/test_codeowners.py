"""CODEOWNERS semantics, with expected answers taken from the hosts' documentation.

GitHub: docs.github.com "About code owners" (its "Example of a CODEOWNERS file" and
"Syntax exceptions"). GitLab: docs.gitlab.com "Code Owners syntax" (reference.md)
and "Advanced CODEOWNERS configuration" (advanced.md). Each test quotes the doc line
its expectation comes from.
"""

from __future__ import annotations

import textwrap

import pytest

from ctxsel.codeowners import CodeOwners, detect_syntax, parse, parse_github
from ctxsel.codeowners_gitlab import parse_gitlab


def github(text: str) -> CodeOwners:
    return parse_github(textwrap.dedent(text))


def gitlab(text: str) -> CodeOwners:
    return parse_gitlab(textwrap.dedent(text))


# ====================================================================== GitHub
# The example file of "About code owners", verbatim (comments kept short).
GITHUB_DOC_EXAMPLE = """\
# This is a comment.
# Each line is a file pattern followed by one or more owners.

*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/*  docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/ @octocat
/apps/github
"""


def only(line: str) -> CodeOwners:
    """The doc example's default line plus one documented line, to test that line alone."""
    return github("* @global-owner1 @global-owner2\n" + line + "\n")


def test_github_doc_example_parses_without_warnings():
    owners = github(GITHUB_DOC_EXAMPLE)
    assert owners.warnings == []
    assert len(owners.rules) == 12


def test_github_default_owners():
    # "These owners will be the default owners for everything in the repo."
    assert github(GITHUB_DOC_EXAMPLE).owners_of("RandomName.docx") == ["@global-owner1", "@global-owner2"]


def test_github_last_match_wins_and_inline_comment():
    # "Order is important; the last matching pattern takes the most precedence. When someone
    #  opens a pull request that only modifies JS files, only @js-owner and not the global
    #  owner(s) will be requested" -- "*.js    @js-owner #This is an inline comment."
    owners = only("*.js    @js-owner #This is an inline comment.")
    assert owners.owners_of("src/app.js") == ["@js-owner"]
    assert owners.owners_of("app.js") == ["@js-owner"]
    assert owners.owners_of("src/app.ts") == ["@global-owner1", "@global-owner2"]


def test_github_email_owner():
    # "You can also use email addresses if you prefer." -- "*.go docs@example.com"
    assert only("*.go docs@example.com").owners_of("cmd/main.go") == ["docs@example.com"]


def test_github_team_owner():
    # "the octocats team in the octo-org organization owns all .txt files."
    assert only("*.txt @octo-org/octocats").owners_of("a/b/notes.txt") == ["@octo-org/octocats"]


def test_github_anchored_directory_any_depth_below():
    # "@doctocat owns any files in the build/logs directory at the root of the repository
    #  and any of its subdirectories." -- "/build/logs/ @doctocat"
    owners = only("/build/logs/ @doctocat")
    assert owners.owners_of("build/logs/today.log") == ["@doctocat"]
    assert owners.owners_of("build/logs/2024/01/today.log") == ["@doctocat"]
    assert owners.owners_of("src/build/logs/today.log") == ["@global-owner1", "@global-owner2"]


def test_github_docs_star_is_one_level():
    # "The `docs/*` pattern will match files like `docs/getting-started.md` but not further
    #  nested files like `docs/build-app/troubleshooting.md`."
    owners = only("docs/*  docs@example.com")
    assert owners.owners_of("docs/getting-started.md") == ["docs@example.com"]
    assert owners.owners_of("docs/build-app/troubleshooting.md") == ["@global-owner1", "@global-owner2"]


def test_github_unanchored_directory_matches_anywhere():
    # "@octocat owns any file in an apps directory anywhere in your repository." -- "apps/ @octocat"
    owners = only("apps/ @octocat")
    assert owners.owners_of("apps/web/index.js") == ["@octocat"]
    assert owners.owners_of("services/apps/web/index.js") == ["@octocat"]
    assert owners.owners_of("myapps/x.js") == ["@global-owner1", "@global-owner2"]


def test_github_leading_slash_anchors_to_root():
    # "@doctocat owns any file in the `/docs` directory in the root of your repository and
    #  any of its subdirectories." -- "/docs/ @doctocat"
    owners = only("/docs/ @doctocat")
    assert owners.owners_of("docs/index.md") == ["@doctocat"]
    assert owners.owners_of("docs/api/v1/index.md") == ["@doctocat"]
    assert owners.owners_of("site/docs/index.md") == ["@global-owner1", "@global-owner2"]


def test_github_several_owners_on_one_line():
    # "any change inside the `/scripts` directory will require approval from @doctocat or @octocat."
    assert only("/scripts/ @doctocat @octocat").owners_of("scripts/deploy.sh") == ["@doctocat", "@octocat"]


def test_github_double_star_logs():
    # "@octocat owns any file in a `/logs` directory such as `/build/logs`, `/scripts/logs`,
    #  and `/deeply/nested/logs`." -- "**/logs @octocat"
    owners = only("**/logs @octocat")
    for path in ("build/logs/a.txt", "scripts/logs/a.txt", "deeply/nested/logs/a.txt", "logs/a.txt"):
        assert owners.owners_of(path) == ["@octocat"], path
    assert owners.owners_of("build/catalogs/a.txt") == ["@global-owner1", "@global-owner2"]


def test_github_pattern_without_owners_unowns():
    # "@octocat owns any file in the `/apps` directory in the root of your repository except
    #  for the `/apps/github` subdirectory, as its owners are left empty."
    owners = github("/apps/ @octocat\n/apps/github\n")
    assert owners.owners_of("apps/web/x.js") == ["@octocat"]
    assert owners.owners_of("apps/github/x.js") == []


def test_github_subdirectory_own_owner():
    # "...except for the `/apps/github` subdirectory, as this subdirectory has its own owner @doctocat"
    owners = github("/apps/ @octocat\n/apps/github @doctocat\n")
    assert owners.owners_of("apps/github/x.js") == ["@doctocat"]
    assert owners.owners_of("apps/gitlab/x.js") == ["@octocat"]


def test_github_whole_doc_example_together():
    # The same documented lines evaluated as one file: later lines override earlier ones.
    owners = github(GITHUB_DOC_EXAMPLE)
    assert owners.owners_of("docs/getting-started.md") == ["@doctocat"]  # /docs/ comes after docs/*
    assert owners.owners_of("build/logs/x.js") == ["@octocat"]  # **/logs comes after *.js and /build/logs/
    assert owners.owners_of("apps/github/main.go") == []
    assert owners.owners_of("lib/apps/x.txt") == ["@octocat"]  # apps/ after *.txt


@pytest.mark.parametrize(
    "line, why",
    [
        # "Syntax exceptions: ... Using `!` to negate a pattern" does not work
        ("!*.js @js-owner", "negation"),
        # "Using `[ ]` to define a character range" does not work
        ("*.[jt]s @js-owner", "character ranges"),
        # "Escaping a pattern starting with `#` using `\\` so it is treated as a pattern" does not work
        ("\\#notes.md @js-owner", "escaping '#'"),
        # "If any line in your CODEOWNERS file contains invalid syntax, that line will be skipped."
        ("*.js js-owner-without-at", "not an owner"),
    ],
)
def test_github_unsupported_syntax_is_skipped_with_a_warning(line, why):
    owners = github(f"* @global\n{line}\n/docs/ @doctocat\n")
    assert owners.owners_of("a.js") == ["@global"]
    assert owners.owners_of("#notes.md") == ["@global"]
    assert owners.owners_of("docs/x.md") == ["@doctocat"], "the rest of the file still applies"
    assert len(owners.warnings) == 1
    assert owners.warnings[0].startswith("CODEOWNERS:2: ") and why in owners.warnings[0]


def test_github_escaped_brackets_are_literal():
    # GitHub's error for '[' reads "both `[` and `]` must be escaped with a `\\`" (next.js routes).
    owners = github("* @global\n/pages/users/\\[userId\\].js @team\n")
    assert owners.warnings == []
    assert owners.owners_of("pages/users/[userId].js") == ["@team"]
    assert owners.owners_of("pages/users/u.js") == ["@global"]


def test_github_query_with_leading_slash():
    # The codeowners package anchors with \A and misses "/docs/x.md" (sbdchd/codeowners#40).
    owners = github("/docs/ @doctocat\n")
    assert owners.owners_of("/docs/x.md") == ["@doctocat"]
    assert owners.owners_of("./docs/x.md") == ["@doctocat"]


def test_github_escaped_space_in_path():
    owners = github("/my\\ docs/ @doctocat\n")
    assert owners.owners_of("my docs/a.md") == ["@doctocat"]
    assert owners.owners_of("my/a.md") == []


def test_github_paths_are_case_sensitive():
    # "CODEOWNERS paths are case sensitive, because GitHub uses a case sensitive file system."
    owners = github("/Docs/ @doctocat\n")
    assert owners.owners_of("Docs/a.md") == ["@doctocat"]
    assert owners.owners_of("docs/a.md") == []


def test_github_root_star_and_extension_in_directory_names():
    owners = github("/* @root\n*.js @js\n")
    assert owners.owners_of("README.md") == ["@root"]
    assert owners.owners_of("src/README.md") == []
    # gitignore semantics: a pattern without a slash also matches a directory of that name
    assert owners.owners_of("vendor/jquery.js/dist/x.css") == ["@js"]


# ====================================================================== GitLab
def test_gitlab_reference_example():
    owners = gitlab("""\
        * @default-owner
        README.md @doc-team @tech-lead
        *.rb @ruby-owner
        LICENSE @legal janedoe@gitlab.com
        README @group @group/with-nested/subgroup
        /docs/ @all-docs
        /docs/* @root-docs
        /docs/**/*.md @markdown-docs
        /db/**/index.md @index-docs
        [Documentation]
        ee/docs    @docs
        docs       @docs
        /config/ @@maintainer
        """)
    # "Specify multiple Code Owners to a specific file: README.md @doc-team @tech-lead"
    assert owners.owners_of("README.md") == ["@doc-team", "@tech-lead"]
    # "Specify Code Owners with usernames or email addresses: LICENSE @legal janedoe@gitlab.com"
    assert owners.owners_of("LICENSE") == ["@legal", "janedoe@gitlab.com"]
    # "Use group names to match groups and nested groups"
    assert owners.owners_of("README") == ["@group", "@group/with-nested/subgroup"]
    # "Specify a Code Owner to all files with a specific extension: *.rb @ruby-owner"
    assert owners.owners_of("app/models/user.rb") == ["@ruby-owner"]
    # "/docs/**/*.md @markdown-docs  # Match specific file types in any subdirectory"
    assert owners.owners_of("docs/api/index.md") == ["@markdown-docs"]
    # "/docs/* @root-docs" (a non-markdown file directly in docs)
    assert owners.owners_of("docs/logo.png") == ["@root-docs"]
    # "Specify a Code Owner to a directory and all its contents: /docs/ @all-docs"
    assert owners.owners_of("docs/img/logo.png") == ["@all-docs"]
    # "/db/**/index.md @index-docs   # Match a specific file name in any subdirectory"
    assert owners.owners_of("db/a/b/index.md") == ["@index-docs"]
    # "Assign a role as a Code Owner: /config/ @@maintainer" (in the Documentation section here)
    assert owners.owners_of("config/app.yml") == ["@default-owner", "@@maintainer"]


def test_gitlab_sections_evaluated_separately():
    owners = gitlab("""\
        * @admin

        [README Owners]
        README.md @user1 @user2
        internal/README.md @user4

        [README other owners]
        README.md @user3
        """)
    # "The Code Owners for the README.md in the root directory are: @admin, from the unnamed
    #  section. @user1 and @user2, from [README Owners]. @user3, from [README other owners]."
    assert owners.owners_of("README.md") == ["@admin", "@user1", "@user2", "@user3"]
    # "The Code Owners for internal/README.md are: @admin ... @user4, from the last entry in
    #  [README Owners]. @user3 from [README other owners]."
    assert owners.owners_of("internal/README.md") == ["@admin", "@user4", "@user3"]
    assert [r.section for r in owners.deciding_rules("internal/README.md")] == [None, "README Owners", "README other owners"]


def test_gitlab_section_default_owners():
    owners = gitlab("""\
        [Documentation] @docs-team
        docs/
        README.md

        [Database] @database-team @agarcia
        model/db/
        config/db/database-setup.md @docs-team
        """)
    # "@docs-team owns all items in the Documentation section."
    assert owners.owners_of("docs/guide.md") == ["@docs-team"]
    assert owners.owners_of("README.md") == ["@docs-team"]
    # "@database-team and @agarcia own all items in the Database section except
    #  config/db/database-setup.md, which has an override assigning it to @docs-team."
    assert owners.owners_of("model/db/schema.rb") == ["@database-team", "@agarcia"]
    assert owners.owners_of("config/db/database-setup.md") == ["@docs-team"]
    assert owners.warnings == []


def test_gitlab_regular_entries_and_sections():
    owners = gitlab("""\
        * @general-approvers

        [Documentation] @docs-team
        docs/
        README.md
        *.txt

        [Database] @database-team
        model/db/
        config/db/database-setup.md @docs-team
        """)
    # "A merge request that modifies model/db/CHANGELOG.txt would require three approvals: one
    #  from each of the @general-approvers, @docs-team, and @database-team groups."
    assert owners.owners_of("model/db/CHANGELOG.txt") == ["@general-approvers", "@docs-team", "@database-team"]


def test_gitlab_optional_and_approval_sections_and_duplicate_names():
    owners = gitlab("""\
        [Documentation][2]
        ee/docs/    @docs
        docs/       @docs

        [Database]
        README.md  @database
        model/db/   @database

        ^[DOCUMENTATION]
        README.md  @docs
        """)
    # "This code results in three entries under the Documentation section header ... The entries
    #  defined under the sections Documentation and DOCUMENTATION are combined, using the case of
    #  the first section."
    assert [r.section for r in owners.rules].count("Documentation") == 3
    assert "DOCUMENTATION" not in {r.section for r in owners.rules}
    assert owners.owners_of("README.md") == ["@docs", "@database"]  # section order: first appearance


def test_gitlab_last_entry_wins_within_a_section():
    # "The Code Owner for terms.md would be @legal-team."
    owners = gitlab("*.md @doc-team\nterms.md @legal-team\n")
    assert owners.owners_of("terms.md") == ["@legal-team"]


def test_gitlab_relative_paths_match_at_any_depth():
    owners = gitlab("README.md @username\ninternal/README.md @internal\n/docs/README.md @docs\n")
    # "Matches /README.md, /internal/README.md, /app/lib/README.md" -- README.md @username
    assert owners.owners_of("app/lib/README.md") == ["@username"]
    # "Matches /internal/README.md, /docs/internal/README.md, /docs/api/internal/README.md"
    for path in ("internal/README.md", "docs/internal/README.md", "docs/api/internal/README.md"):
        assert owners.owners_of(path) == ["@internal"], path
    # "Matches only README.md inside the /docs directory." -- /docs/README.md
    assert owners.owners_of("docs/README.md") == ["@docs"]
    assert owners.owners_of("x/docs/README.md") == ["@username"]


def test_gitlab_wildcards_and_globstar():
    owners = gitlab("""\
        /docs/*.md @md
        /docs/index.* @index
        /docs/*spec* @spec
        /docs/*/README.md @readme
        /gl/**/index.md @globstar
        """)
    # "/docs/index.* ... For example: /docs/index.md, /docs/index.html, /docs/index.xml"
    assert owners.owners_of("docs/index.html") == ["@index"]
    # "Any file in the docs directory with 'spec' in the name. For example: /docs/qa_specs.rb,
    #  /docs/spec_helpers.rb, /docs/runtime.spec"
    for path in ("docs/qa_specs.rb", "docs/spec_helpers.rb", "docs/runtime.spec"):
        assert owners.owners_of(path) == ["@spec"], path
    # "README.md files one level deep within the docs directory. For example: /docs/api/README.md"
    assert owners.owners_of("docs/api/README.md") == ["@readme"]
    assert owners.owners_of("docs/api/v1/README.md") == []
    assert owners.owners_of("docs/guide.md") == ["@md"]
    # "/docs/**/index.md -- For example: /docs/index.md, /docs/api/index.md, /docs/api/graphql/index.md."
    for path in ("gl/index.md", "gl/api/index.md", "gl/api/graphql/index.md"):
        assert owners.owners_of(path) == ["@globstar"], path


def test_gitlab_fnmatch_flags():
    owners = gitlab("**/*.rb @ruby\n/conf/* @conf\n")
    # "`**/*.rb` matches `config/database.rb` and `app/controllers/users/stars_controller.rb`."
    assert owners.owners_of("config/database.rb") == ["@ruby"]
    assert owners.owners_of("app/controllers/users/stars_controller.rb") == ["@ruby"]
    # "The File::FNM_DOTMATCH flag allows * to match dotfiles like .gitignore."
    assert owners.owners_of("conf/.gitignore") == ["@conf"]
    # "The File::FNM_PATHNAME flag prevents * from matching the / path separator."
    assert owners.owners_of("conf/sub/x") == []


def test_gitlab_directory_needs_trailing_slash():
    # "End a path with / to match all files in the directory and its subdirectories"; without
    # the slash GitLab's fnmatch matches only a file of that name.
    owners = gitlab("/docs @file\n/src/ @dir\n")
    assert owners.owners_of("docs") == ["@file"]
    assert owners.owners_of("docs/a.md") == []
    assert owners.owners_of("src/a/b.c") == ["@dir"]


def test_gitlab_exclusions():
    owners = gitlab("""\
        * @username
        !pom.xml

        [Ruby]
        *.rb @ruby-team
        !/config/**/*.rb
        """)
    # "The pom.xml exclusion applies to the default section."
    assert owners.owners_of("pom.xml") == []
    # "The /config/**/*.rb exclusion only affects Ruby files in the Ruby section."
    assert owners.owners_of("config/initializers/a.rb") == ["@username"]
    assert owners.owners_of("app/a.rb") == ["@username", "@ruby-team"]


def test_gitlab_exclusion_cannot_be_reincluded():
    # "/special/*.rb @ruby-owner  # This won't take effect as *.rb is already excluded."
    owners = gitlab("* @default-owner\n!*.rb\n/special/*.rb @ruby-owner\n")
    assert owners.owners_of("special/a.rb") == []
    assert owners.owners_of("special/a.py") == ["@default-owner"]
    # "/config/routes.rb @ops    # This won't take effect as config Ruby files are excluded."
    owners = gitlab("[Ruby]\n*.rb @ruby-team\n!/config/**/*.rb\n/config/routes.rb @ops\n")
    assert owners.owners_of("config/routes.rb") == []
    # "!**/generated/          # Any files in generated directories."
    owners = gitlab("* @default-owner\n!package-lock.json\n!**/generated/\n")
    assert owners.owners_of("src/generated/api.ts") == []
    assert owners.owners_of("web/package-lock.json") == []
    assert owners.owners_of("src/api.ts") == ["@default-owner"]


def test_gitlab_escapes():
    owners = gitlab("\\#file_with_pound.rb @owner-file-with-pound\npath\\ with\\ spaces/*.md @space-owner\n")
    # "Files with a `#` can still be accessed by escaping the pound sign"
    assert owners.owners_of("#file_with_pound.rb") == ["@owner-file-with-pound"]
    # "Escape whitespace in paths with backslashes: path\\ with\\ spaces/*.md @owner"
    assert owners.owners_of("path with spaces/a.md") == ["@space-owner"]


def test_gitlab_malformed_owners_are_ignored_with_a_warning():
    # "/path/* @group user_without_at_symbol @user_with_at_symbol -- This entry is owned by
    #  @group and @user_with_at_symbol."
    owners = gitlab("/path/* @group user_without_at_symbol @user_with_at_symbol\n")
    assert owners.owners_of("path/x") == ["@group", "@user_with_at_symbol"]
    assert len(owners.warnings) == 1 and owners.warnings[0].startswith("CODEOWNERS:1: ")


def test_gitlab_unparsable_section_becomes_an_entry():
    # "GitLab recognizes the heading [Section name as an entry. The default section includes
    #  3 rules: * owned by @group, [Section owned by name, docs/ owned by @docs_group"
    owners = gitlab("* @group\n\n[Section name\ndocs/ @docs_group\n")
    assert [r.pattern for r in owners.rules] == ["*", "[Section", "docs/"]
    assert {r.section for r in owners.rules} == {None}
    assert owners.owners_of("docs/a.md") == ["@docs_group"]
    assert owners.owners_of("a.md") == ["@group"]
    assert any(w.startswith("CODEOWNERS:3: ") for w in owners.warnings)


def test_gitlab_duplicate_pattern_keeps_its_first_position():
    # GitLab keys entries by pattern in an ordered hash: redefining *.md updates its owners
    # but not its place, so the later terms.md still wins for terms.md.
    owners = gitlab("*.md @a\nterms.md @b\n*.md @c\n")
    assert owners.owners_of("terms.md") == ["@b"]
    assert owners.owners_of("other.md") == ["@c"]


# ====================================================================== choosing the syntax
def test_detect_syntax():
    assert detect_syntax("* @a\n[Docs]\ndocs/ @b\n") == "gitlab"
    assert detect_syntax("* @a\n^[Docs][2] @d\n") == "gitlab"
    assert detect_syntax("* @a\n/pages/\\[id\\].js @b\n") == "github"
    assert detect_syntax("* @a\n", ".gitlab/CODEOWNERS") == "gitlab"
    assert parse("[Docs] @docs-team\ndocs/\n").syntax == "gitlab"
    assert parse("docs/ @x\n").syntax == "github"


def test_same_text_different_hosts():
    # The classic trap: a relative path with a slash is anchored on GitHub, any depth on GitLab.
    text = "* @all\ninternal/README.md @internal\n"
    assert parse(text, "github").owners_of("docs/internal/README.md") == ["@all"]
    assert parse(text, "gitlab").owners_of("docs/internal/README.md") == ["@internal"]


def test_windows_line_endings_and_bom():
    for syntax in ("github", "gitlab"):
        owners = parse("\ufeff* @all\r\n/docs/ @docs\r\n", syntax)
        assert owners.warnings == []
        assert owners.owners_of("x.py") == ["@all"] and owners.owners_of("docs/a.md") == ["@docs"]


def test_owned_paths_splits_files():
    from ctxsel.codeowners import owned_paths

    owners = github("* @all\n/web/ @Web\n")
    assert owned_paths(owners, ["web/a.ts", "api/b.py", "web/c.ts"], ["web"]) == (["web/a.ts", "web/c.ts"], ["api/b.py"])
    assert owned_paths(owners, ["a.ts"], ["@web"], prefix="web/") == (["a.ts"], [])
