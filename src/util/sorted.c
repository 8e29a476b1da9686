/* Searches in sorted arrays: the time grids of signals, windows and speed tables. */
#include "mbsidimpl.h"

/* First index i with t[i] >= value (n when there is none); t sorted ascending. */
PetscInt MbsLowerBound(const PetscReal t[], PetscInt n, PetscReal value)
{
  PetscInt lo = 0, hi = n;

  while (lo < hi) {
    PetscInt mid = lo + (hi - lo) / 2;

    if (t[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
