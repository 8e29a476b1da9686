/*
  The sparse Jacobian's LU (core/klu_refactor.c) on a sequence of 2 x 2 AIJ matrices, each solve A x = b and A^T x = b
  against the closed-form inverse [d -b; -c a] / (ad - bc): a first pattern with an entry at zero, the entry becoming
  non-zero (a new analysis), a small change (the pivots reused), then a matrix whose diagonal is 1e-14 while the
  pivots of the last factorisation are on the diagonal. Refactored with those pivots, its pivot growth is about 1e14
  and the solve off by 8e-4; only the fallback to a factorisation with pivoting gives the 1e-15 asserted.
  Prints each case's relative error and the counts of analyses, factorisations with pivoting and refactorisations;
  fails above 1e-13 or when a count is not the one the case implies (a refactorisation that always fell back to
  pivoting, or never did, would still solve accurately). Then the adjoint's reuse (MbsPCSetKLUReuse): a change of 1e-5
  is refined on the kept factors to the closed form, a matrix the kept factors cannot refine (their iteration diverges)
  is factored afresh and solved again, the next matrix after such a failure is factored, the one after that refined
  again; turned off, the next matrix is factored. Each with its counts.
*/
#include "core/coreimpl.h"

/* A = [a b; c d]; the largest relative error of the solves of A x = rhs and A^T x = rhs */
static PetscErrorCode SolveCase(KSP ksp, Mat A, const PetscScalar m[4], PetscReal *error)
{
  const PetscInt    rows[2] = {0, 1};
  const PetscScalar rhs[2]  = {1, -2};
  const PetscScalar det     = m[0] * m[3] - m[1] * m[2];
  Vec               b, x;

  PetscFunctionBeginUser;
  PetscCall(MatSetValues(A, 2, rows, 2, rows, m, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSetValues(b, 2, rows, rhs, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  *error = 0;
  for (PetscInt transpose = 0; transpose < 2; transpose++) {
    /* the inverse's off-diagonal entries trade places under transposition */
    const PetscScalar  off0 = transpose ? m[2] : m[1], off1 = transpose ? m[1] : m[2];
    const PetscScalar  exact[2] = {(m[3] * rhs[0] - off0 * rhs[1]) / det, (-off1 * rhs[0] + m[0] * rhs[1]) / det};
    const PetscScalar *xa;

    PetscCall(transpose ? KSPSolveTranspose(ksp, b, x) : KSPSolve(ksp, b, x));
    PetscCall(VecGetArrayRead(x, &xa));
    for (PetscInt i = 0; i < 2; i++) *error = PetscMax(*error, PetscAbsScalar(xa[i] - exact[i]) / PetscMax(PetscAbsScalar(exact[0]), PetscAbsScalar(exact[1])));
    PetscCall(VecRestoreArrayRead(x, &xa));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const struct {
    const char *what;
    PetscScalar m[4];     /* row by row */
    PetscInt    count[3]; /* analyses, factorisations with pivoting, refactorisations after this case */
  } cases[] = {
    {"an entry at zero",                 {2, 1, 0, 3},         {1, 1, 0}},
    {"the entry non-zero: new analysis", {2, 1, 0.5, 3},       {2, 2, 0}},
    {"small change: pivots reused",      {2.1, 1, 0.5, 3},     {2, 2, 1}},
    {"diagonal 1e-14: pivoting again",   {1e-14, 1, 2, 1e-14}, {2, 3, 1}},
    {"back to the first values",         {2, 1, 0.5, 3},       {2, 3, 2}},
  };
  Mat       A;
  KSP       ksp;
  PC        pc;
  PetscReal worst   = 0;
  PetscBool counted = PETSC_TRUE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 2, 2, 2, NULL, &A));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(MbsPCSetKLURefactor(pc));
  for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(cases); c++) {
    PetscReal error = 0;
    PetscInt  count[3];

    PetscCall(SolveCase(ksp, A, cases[c].m, &error));
    PetscCall(MbsPCGetKLUCounts(pc, &count[0], &count[1], &count[2]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-36s relative error %.1e, %" PetscInt_FMT " analyses, %" PetscInt_FMT " factorisations, %" PetscInt_FMT " refactorisations\n", cases[c].what, (double)error, count[0], count[1], count[2]));
    worst = PetscMax(worst, error);
    for (PetscInt k = 0; k < 3; k++) counted = (PetscBool)(counted && count[k] == cases[c].count[k]);
  }
  /* the adjoint's reuse (MbsPCSetKLUReuse, at most 3 corrections): counts of set-ups, factorisations, refined solves and
     failed refinements after each case */
  {
    const struct {
      const char *what;
      PetscScalar m[4];
      PetscInt    count[4];
    } reused[] = {
      {"reuse: small change, refined",     {2.00002, 1, 0.5, 3.00001}, {1, 0, 2, 0}},
      {"reuse: far off, factored afresh",  {1e-14, 1, 2, 1e-14},       {2, 1, 2, 1}},
      {"reuse: after a failure, factored", {2, 1, 0.5, 3},             {3, 2, 2, 1}},
      {"reuse: small change, refined",     {2, 1, 0.5, 3.00003},       {4, 2, 4, 1}},
    };
    MbsKLUReuseCounts reuse;
    PetscInt          before[3], after[3];

    PetscCall(MbsPCSetKLUReuse(pc, 3));
    for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(reused); c++) {
      PetscReal error = 0;

      PetscCall(SolveCase(ksp, A, reused[c].m, &error));
      PetscCall(MbsPCGetKLUReuseCounts(pc, &reuse));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-36s relative error %.1e, %" PetscInt_FMT " matrices, %" PetscInt_FMT " factored, %" PetscInt_FMT " solves refined (%" PetscInt_FMT " corrections), %" PetscInt_FMT " not\n", reused[c].what, (double)error,
                            reuse.nsetup, reuse.nfactor, reuse.nsolve, reuse.ncorrection, reuse.nfail));
      worst   = PetscMax(worst, error);
      counted = (PetscBool)(counted && reuse.nsetup == reused[c].count[0] && reuse.nfactor == reused[c].count[1] && reuse.nsolve == reused[c].count[2] && reuse.nfail == reused[c].count[3]);
    }
    /* a refinement that converges at once would mean the kept factors were of this matrix: the changes must cost corrections */
    counted = (PetscBool)(counted && reuse.ncorrection >= reuse.nsolve);
    /* off again: every new matrix is factored, as the forward solve's Newton expects */
    PetscCall(MbsPCSetKLUReuse(pc, 0));
    PetscCall(MbsPCGetKLUCounts(pc, &before[0], &before[1], &before[2]));
    {
      PetscReal error = 0;

      PetscCall(SolveCase(ksp, A, (PetscScalar[]){2.1, 1, 0.5, 3}, &error));
      worst = PetscMax(worst, error);
    }
    PetscCall(MbsPCGetKLUCounts(pc, &after[0], &after[1], &after[2]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-36s %" PetscInt_FMT " factorisation(s)\n", "reuse off: factored", after[1] + after[2] - before[1] - before[2]));
    counted = (PetscBool)(counted && after[1] + after[2] == before[1] + before[2] + 1);
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  if (worst <= 1e-13) PetscCall(PetscPrintf(PETSC_COMM_SELF, "KLU solves agree with the closed form\n"));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "KLU solve off by %.1e\n", (double)worst));
  if (!counted) PetscCall(PetscPrintf(PETSC_COMM_SELF, "KLU analysed, pivoted or reused its pivots other than each case expects\n"));
  PetscCall(PetscFinalize());
  return worst <= 1e-13 && counted ? 0 : 1;
}
