"""The revisions scripts/bench-compare compares: which commit each names, and a
Release roam-bench of it, built in a git worktree of its own under the cache
directory (<cache>/<sha>/) and reused by later comparisons."""
import os
import shutil
import subprocess
import sys

# The revision that means "the working tree as it is now": tracked changes,
# staged or not, and untracked files that are not ignored.
WORKTREE = "WORKTREE"


class Failure(Exception):
    """A problem that ends the comparison with a message, not a traceback."""


def git(repo, *args, env=None):
    r = subprocess.run(["git", "-C", repo] + list(args), capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise Failure("git %s failed: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout.strip()


def resolve(repo, spec, cache):
    """The commit `spec` names, and a one-line description of it.

    WORKTREE becomes a commit made (without touching the branch, the index or
    the stash) from a private copy of the index with every change added; when
    nothing changed it is simply HEAD's commit.
    """
    if spec == WORKTREE:
        return snapshot(repo, cache)
    r = subprocess.run(["git", "-C", repo, "rev-parse", "--verify", "--quiet", spec + "^{commit}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise Failure("'%s' is not a commit in %s (try a sha, a branch, a tag or %s)" % (spec, repo, WORKTREE))
    sha = r.stdout.strip()
    return sha, describe(repo, sha)


def describe(repo, sha):
    text = git(repo, "log", "-1", "--format=%h %s", sha)
    return text if len(text) <= 72 else text[:69] + "..."


def snapshot(repo, cache):
    head = git(repo, "rev-parse", "HEAD")
    os.makedirs(cache, exist_ok=True)
    index = os.path.join(cache, "worktree.index")
    # Starting from a copy of the real index keeps its file stat cache, so
    # `add -A` reads only the files that changed.
    real_index = os.path.join(repo, git(repo, "rev-parse", "--git-path", "index"))
    if os.path.exists(real_index):
        shutil.copyfile(real_index, index)
    env = dict(os.environ, GIT_INDEX_FILE=index)
    if not os.path.exists(real_index):
        git(repo, "read-tree", "HEAD", env=env)
    git(repo, "add", "-A", env=env)
    tree = git(repo, "write-tree", env=env)
    os.remove(index)
    if tree == git(repo, "rev-parse", "HEAD^{tree}"):
        return head, describe(repo, head) + " (working tree: no changes)"
    env.update(GIT_AUTHOR_NAME="bench-compare", GIT_AUTHOR_EMAIL="bench-compare@localhost",
               GIT_COMMITTER_NAME="bench-compare", GIT_COMMITTER_EMAIL="bench-compare@localhost")
    del env["GIT_INDEX_FILE"]
    sha = git(repo, "commit-tree", tree, "-p", head, "-m", "bench-compare: working tree on " + head[:12], env=env)
    return sha, "working tree on " + describe(repo, head)


def build(repo, cache, sha, dirname, jobs, what):
    """The path of roam-bench built from `sha` in <cache>/<dirname>.

    A revision's directory is named by its sha, so an existing build is that
    revision's and only needs ninja to confirm it is up to date. The working
    tree always uses the same directory, checked out anew each time, so that
    only what changed since the last comparison is recompiled.
    """
    path = os.path.join(cache, dirname)
    if os.path.exists(os.path.join(path, ".git")):
        current = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True, text=True)
        if current.returncode != 0:
            raise Failure("%s is not a usable worktree; delete it and run again" % path)
        if current.stdout.strip() != sha:
            git(path, "checkout", "-q", "-f", "--detach", sha)
    else:
        # A directory deleted by `make clean` stays registered as a worktree
        # and would block `worktree add`: forget it (that one only), then
        # clear what an interrupted earlier attempt left.
        subprocess.run(["git", "-C", repo, "worktree", "remove", "--force", path], capture_output=True)
        if os.path.exists(path):
            shutil.rmtree(path)
        os.makedirs(cache, exist_ok=True)
        git(repo, "worktree", "add", "-q", "--detach", path, sha)
    log_path = os.path.join(path, "build", "bench-compare-build.log")
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    steps = []
    if not os.path.exists(os.path.join(path, "build", "release", "build.ninja")):
        # Only roam-bench is built: the tests and examples stay out of the configuration.
        steps.append(["cmake", "--preset", "release", "-DROAM_BUILD_TESTS=OFF", "-DROAM_BUILD_EXAMPLES=OFF"])
    steps.append(["cmake", "--build", "--preset", "release", "-j", str(jobs), "--target", "roam-bench"])
    print("bench-compare: building %s in %s (log: %s)" % (what, path, log_path), file=sys.stderr, flush=True)
    with open(log_path, "w") as log:
        for cmd in steps:
            log.write("$ %s\n" % " ".join(cmd))
            log.flush()
            status = subprocess.run(cmd, cwd=path, stdout=log, stderr=subprocess.STDOUT).returncode
            if status != 0:
                with open(log_path) as f:
                    tail = "".join(f.readlines()[-25:])
                raise Failure("building %s failed (%s: exit status %d); end of %s:\n%s" %
                              (what, " ".join(cmd[:3]), status, log_path, tail))
    binary = os.path.join(path, "build", "release", "bench", "roam-bench")
    if not os.access(binary, os.X_OK):
        raise Failure("building %s produced no %s" % (what, binary))
    return binary
