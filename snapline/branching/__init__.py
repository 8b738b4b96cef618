"""Branches from snapshots: a git branch whose tree is the workspace after snapshot N.

``snapline branch N NAME`` leaves the checkout, HEAD and the index alone: git's own
plumbing (``git fast-import``) writes the commit and the branch, so snapline writes
nothing inside ``.git/`` itself.
"""

from snapline.branching.git_branch import BranchError, BranchResult, make_branch
from snapline.branching.recorded import ever_recorded

__all__ = ["BranchError", "BranchResult", "ever_recorded", "make_branch"]
