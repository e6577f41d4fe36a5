"""Which CI system ran the tests, for the `meta.ci` of Cucumber Messages (Cucumber's tools show it, link the build).

Read from the variables GitHub Actions, GitLab CI and Jenkins set, as Cucumber's own
`ci-environment` does; any other CI (`CI` set) is named `CI`. A remote URL a CI hands over may
carry credentials (GitLab's `CI_REPOSITORY_URL` holds a job token): they are dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

import cucumber_messages as cm

__all__ = ["ci_of"]


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    if not parts.username and not parts.password:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _git(remote: str | None, revision: str | None, branch: str | None, tag: str | None = None) -> cm.Git | None:
    if not remote or not revision:
        return None
    return cm.Git(remote=_without_credentials(remote), revision=revision, branch=branch or None, tag=tag or None)


def ci_of(environ: Mapping[str, str]) -> cm.Ci | None:
    """The CI system `environ` (a process's environment) says the run is on; None off CI."""
    get = environ.get
    if get("GITHUB_ACTIONS") == "true":
        server, repository = get("GITHUB_SERVER_URL", "https://github.com"), get("GITHUB_REPOSITORY", "")
        run = get("GITHUB_RUN_ID")
        return cm.Ci(
            name="GitHub Actions",
            url=f"{server}/{repository}/actions/runs/{run}" if repository and run else None,
            build_number=get("GITHUB_RUN_NUMBER"),
            git=_git(
                f"{server}/{repository}.git" if repository else None,
                get("GITHUB_SHA"),
                get("GITHUB_HEAD_REF") or get("GITHUB_REF_NAME"),
            ),
        )
    if get("GITLAB_CI") == "true":
        return cm.Ci(
            name="GitLab",
            url=get("CI_JOB_URL") or get("CI_PIPELINE_URL"),
            build_number=get("CI_JOB_ID"),
            git=_git(get("CI_REPOSITORY_URL"), get("CI_COMMIT_SHA"), get("CI_COMMIT_BRANCH"), get("CI_COMMIT_TAG")),
        )
    if get("JENKINS_URL"):
        return cm.Ci(
            name="Jenkins",
            url=get("BUILD_URL"),
            build_number=get("BUILD_NUMBER"),
            git=_git(get("GIT_URL"), get("GIT_COMMIT"), get("GIT_BRANCH")),
        )
    if get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        return cm.Ci(name="CI")
    return None
