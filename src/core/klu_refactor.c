/*
  The sparse Jacobian's LU, KLU's with its pivots reused (a PCSHELL, the default of -jacobian_sparse; simulate.c).

  PETSc 3.18's KLU interface (MATSOLVERKLU) runs klu_factor at every numeric factorisation: the depth-first searches of
  every column's reach and the search for each pivot, again at each of the thousands of Jacobians of a solve, although
  the pattern never changes and the Jacobian barely does from step to step. KLU's own answer is klu_refactor: the
  same pivots and fill as the last klu_factor, only the numbers. And KLU factors every stored entry, while an AIJ
  preallocated for every state holds many that stay zero (the described chain: 707 of its 2863 entries are ever
  non-zero; its factors had 6902 entries, on the 707 they have 1229). So KLU gets the entries that have been non-zero
  so far (active): the same matrix, as the others are exact zeros; one that becomes non-zero later is added and the
  pattern analysed again. On the chain both took the forward solve and the gradient to about 0.45 of their time
  (doc/model-files.md, "KLU refactorisation and constraint rows from lists").

  A pivot chosen for one state may be poor at a later one, so every refactorisation is checked by its reciprocal pivot
  growth g = min_j max|A(:,j)| / max|U(:,j)| (klu_rgrowth, O(nnz)): when g falls below MBS_KLU_GROWTH_DROP times the g
  of the last factorisation with pivoting, the matrix is factored again with pivoting (klu_factor), and its g becomes
  the reference. A new non-zero pattern (MatGetNonzeroState) is analysed afresh (klu_analyze).

  As PETSc's interface does, the CSR arrays of the AIJ are handed to KLU as the compressed columns of A^T: A x = b is
  klu_tsolve, A^T x = b (the adjoint's KSPSolveTranspose) klu_solve; no row scaling (Common.scale 0 for klu_factor,
  PETSc's choice; -1 for klu_refactor, which then skips its O(nnz) check of the arrays klu_factor checked), KLU's
  other defaults (AMD ordering, BTF, pivot tolerance 0.001). -jacobian_petsc_klu (or -pc_type lu
  -pc_factor_mat_solver_type klu, with the solve's prefix) chooses PETSc's interface instead.

  The adjoint sweep of a theta method (adjoint.c, -adjoint_klu_reuse N) solves one transposed system per step, with the
  Jacobian J_n of that step; a factorisation cost the powertrain's 72 unknowns about 11 us, a solve 1 us. There the
  factors M of an earlier step are kept (MbsPCSetKLUReuse) and each J_n^T x = b is solved by iterative refinement,

    x_0 = M^-T b,   x_k+1 = x_k + M^-T (b - J_n^T x_k),

  until the residual is at the backward error of rounding (MbsKLURefine_Private): on the powertrain two corrections per
  step, 85 factorisations in a sweep of 2800 steps, the gradient unchanged to 4e-13 of its largest entry. A solve that
  needs all N corrections has the next matrix factored; one that N do not bring to rounding is solved again with the LU
  of its own matrix, and the next matrices are factored for a while (a doubling back-off). KSP stays KSPPREONLY: a
  Krylov method around the same preconditioner would add its vector work to corrections that contract by 1e-5 each.
*/
#include "core/coreimpl.h"
#include <klu.h>

/* refactor with the old pivots while the pivot growth stays within this factor of that of the last pivoting: LU's
   backward error grows with 1/g, so the old pivots lose at most one digit against fresh ones (the adjoint's solves
   reach the gradient directly; gradients are checked to 1e-6). klu_rcond (min/max |diag U|) is not the test: it
   mixes the matrix's own conditioning, which no pivot order changes, into the pivots' quality.
   tests/test_klu_refactor.c: a diagonal of 1e-14 under diagonal pivots gives g ~ 1e-14 and a solve off by 8e-4. */
#define MBS_KLU_GROWTH_DROP 0.1

/* a solve refined on kept factors (MbsPCSetKLUReuse()) is done when its residual is within this many times
   |op(A)| |x| + |b| (max norms): 8 units of rounding, a little above what the residual's own rounding leaves */
#define MBS_KLU_REFINE_BACKWARD_ERROR (8 * PETSC_MACHINE_EPSILON)

/* after this many failed refinements in a row (1 + 2 + .. + 64 matrices factored), one refinement is tried every
   this many matrices: on engine4's adjoint, where the factors of the last step need 4 corrections and those of two
   steps ago fail, the wasted tries cost 1/64 of a factorisation per step */
#define MBS_KLU_REUSE_MAX_BACKOFF 64

typedef struct {
  klu_common       common;
  klu_symbolic    *symbolic;
  klu_numeric     *numeric;
  PetscObjectState pattern; /* MatGetNonzeroState() of the matrix whose entries active marks */
  PetscInt         nentry;  /* entries of the AIJ */
  PetscBool       *active;  /* nentry: has been non-zero since the pattern was made */
  PetscInt         nactive; /* the matrix KLU factors, the active entries in CSR: */
  int             *ia, *ja; /* n + 1, nactive */
  PetscInt        *entry;   /* nactive: the place of each in the AIJ's values */
  PetscReal       *value;   /* nactive */
  PetscReal        growth;  /* reciprocal pivot growth of the last klu_factor */
  PetscInt         nanalysis, nfactor, nrefactor;
  /* MbsPCSetKLUReuse(): */
  PetscInt          reuse;            /* > 0: the factors are kept across set-ups, each solve refined with at most this many corrections */
  PetscBool         stale;            /* the factors are of an earlier matrix than the operator */
  PetscBool         refactor_next;    /* the last refinement needed all its corrections: the next set-up factors */
  PetscInt          skip, backoff;    /* set-ups left that factor after a failed refinement; their number after the next failure */
  PetscReal        *residual, *bound; /* n: b - op(A) x, and |op(A)| |x| + |b| */
  PetscInt          nwork;
  MbsKLUReuseCounts counts;
} MbsKLU;

/* The active entries (those that have been non-zero, and now those of a) as the CSR ia, ja, entry of klu, analysed */
static PetscErrorCode MbsKLUAnalyse_Private(MbsKLU *klu, PetscInt n, const PetscInt ia[], const PetscInt ja[], const PetscScalar a[])
{
  PetscFunctionBeginUser;
  klu->nactive = 0;
  for (PetscInt k = 0; k < klu->nentry; k++) {
    klu->active[k] = (PetscBool)(klu->active[k] || a[k] != 0);
    klu->nactive += klu->active[k];
  }
  PetscCall(PetscFree4(klu->ia, klu->ja, klu->entry, klu->value));
  PetscCall(PetscMalloc4(n + 1, &klu->ia, klu->nactive, &klu->ja, klu->nactive, &klu->entry, klu->nactive, &klu->value));
  klu->ia[0] = 0;
  for (PetscInt i = 0, c = 0; i < n; i++) {
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++)
      if (klu->active[k]) {
        klu->ja[c]      = (int)ja[k];
        klu->entry[c++] = k;
      }
    klu->ia[i + 1] = (int)c;
  }
  klu_free_numeric(&klu->numeric, &klu->common);
  klu_free_symbolic(&klu->symbolic, &klu->common);
  klu->symbolic = klu_analyze((int)n, klu->ia, klu->ja, &klu->common);
  PetscCheck(klu->symbolic, PETSC_COMM_SELF, PETSC_ERR_LIB, "KLU's analysis of the %" PetscInt_FMT " x %" PetscInt_FMT " Jacobian failed (status %d)", n, n, klu->common.status);
  klu->nanalysis++;
  PetscFunctionReturn(0);
}

/* The LU of the active entries' values: with the last pivots while their growth allows, else with pivoting */
static PetscErrorCode MbsKLUFactor_Private(MbsKLU *klu, PetscInt n)
{
  PetscFunctionBeginUser;
  klu->common.scale = -1; /* no scaling, and no check of the arrays, which the pivoting klu_factor checked (scale 0) */
  if (klu->numeric && klu_refactor(klu->ia, klu->ja, klu->value, klu->symbolic, klu->numeric, &klu->common)) {
    PetscCheck(klu_rgrowth(klu->ia, klu->ja, klu->value, klu->symbolic, klu->numeric, &klu->common), PETSC_COMM_SELF, PETSC_ERR_LIB, "KLU's pivot growth failed (status %d)", klu->common.status);
    if (klu->common.rgrowth >= MBS_KLU_GROWTH_DROP * klu->growth) {
      klu->nrefactor++;
      PetscFunctionReturn(0);
    }
  }
  klu_free_numeric(&klu->numeric, &klu->common);
  klu->common.scale = 0;
  klu->numeric      = klu_factor(klu->ia, klu->ja, klu->value, klu->symbolic, &klu->common);
  PetscCheck(klu->numeric, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "KLU's LU factorisation of the %" PetscInt_FMT " x %" PetscInt_FMT " Jacobian failed (status %d: singular?)", n, n, klu->common.status);
  PetscCheck(klu_rgrowth(klu->ia, klu->ja, klu->value, klu->symbolic, klu->numeric, &klu->common), PETSC_COMM_SELF, PETSC_ERR_LIB, "KLU's pivot growth failed (status %d)", klu->common.status);
  klu->growth = klu->common.rgrowth;
  klu->nfactor++;
  PetscFunctionReturn(0);
}

/* The LU of the operator of pc as it is now (the work of PCSetUp without MbsPCSetKLUReuse()) */
static PetscErrorCode MbsKLUFactorOperator_Private(PC pc, MbsKLU *klu)
{
  Mat                A;
  PetscInt           n;
  const PetscInt    *ia, *ja;
  const PetscScalar *a;
  PetscObjectState   pattern;
  PetscBool          done, grown = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PCGetOperators(pc, NULL, &A));
  PetscCall(MatGetNonzeroState(A, &pattern));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "KLU needs the rows of a sequential AIJ Jacobian");
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  if (!klu->active || pattern != klu->pattern) {
    PetscCall(PetscFree(klu->active));
    klu->nentry = ia[n];
    PetscCall(PetscCalloc1(klu->nentry, &klu->active));
    klu->pattern = pattern;
    grown        = PETSC_TRUE;
  }
  for (PetscInt k = 0; k < klu->nentry && !grown; k++) grown = (PetscBool)(!klu->active[k] && a[k] != 0);
  if (grown) PetscCall(MbsKLUAnalyse_Private(klu, n, ia, ja, a));
  for (PetscInt c = 0; c < klu->nactive; c++) klu->value[c] = a[klu->entry[c]];
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MbsKLUFactor_Private(klu, n));
  if (klu->reuse) klu->counts.nfactor++;
  klu->stale         = PETSC_FALSE;
  klu->refactor_next = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSetUp_MbsKLU(PC pc)
{
  MbsKLU *klu;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &klu));
  if (klu->reuse) klu->counts.nsetup++;
  if (klu->reuse && klu->numeric && !klu->refactor_next && !klu->skip) klu->stale = PETSC_TRUE; /* the solves refine on the kept factors */
  else {
    klu->skip = PetscMax(klu->skip - 1, 0);
    PetscCall(MbsKLUFactorOperator_Private(pc, klu));
  }
  PetscFunctionReturn(0);
}

/* x <- A^-1 x (transpose false) or A^-T x, by the factors held, in place */
static PetscErrorCode MbsKLUSolveInPlace_Private(MbsKLU *klu, PetscInt n, PetscScalar x[], PetscBool transpose)
{
  int ok;

  PetscFunctionBeginUser;
  /* KLU holds the factors of A^T (the CSR arrays as columns) */
  ok = transpose ? klu_solve(klu->symbolic, klu->numeric, (int)n, 1, x, &klu->common) : klu_tsolve(klu->symbolic, klu->numeric, (int)n, 1, x, &klu->common);
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_LIB, "KLU's solve failed (status %d)", klu->common.status);
  PetscFunctionReturn(0);
}

/*
  op(A) x = b (op(A) = A or A^T) by iterative refinement on the factors of an earlier matrix M: x_0 = M^-1 b,
  x_k+1 = x_k + M^-1 (b - op(A) x_k), which contracts by |I - M^-1 op(A)| (on the powertrain's adjoint about 1e-5 per
  correction, the factors up to tens of steps old). It stops when max_i |r_i| <= MBS_KLU_REFINE_BACKWARD_ERROR
  max_i (|op(A)| |x| + |b|)_i, a normwise backward error (Rigal and Gaches) below that of |op(A)|_inf |x|_inf + |b|_inf:
  x then solves exactly a system whose matrix and right side differ from these by that relative amount, what a
  backward stable fresh LU gives. The componentwise backward error (LAPACK's dgerfs) needed a correction more on the
  adjoint's small components and changed the gradient no less. *refined is false when klu->reuse corrections did not
  reach it (or a NaN came up); x is then to be discarded.
*/
static PetscErrorCode MbsKLURefine_Private(PC pc, MbsKLU *klu, Vec b, Vec x, PetscBool transpose, PetscBool *refined)
{
  Mat                A;
  PetscInt           n, k;
  const PetscInt    *ia, *ja;
  const PetscScalar *a, *ba;
  PetscScalar       *xa, *r;
  PetscReal         *bound;
  PetscBool          done;

  PetscFunctionBeginUser;
  PetscCall(PCGetOperators(pc, NULL, &A));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "KLU needs the rows of a sequential AIJ Jacobian");
  if (klu->nwork < n) {
    PetscCall(PetscFree2(klu->residual, klu->bound));
    PetscCall(PetscMalloc2(n, &klu->residual, n, &klu->bound));
    klu->nwork = n;
  }
  r     = klu->residual;
  bound = klu->bound;
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(VecGetArray(x, &xa));
  PetscCall(PetscArraycpy(xa, ba, n));
  PetscCall(MbsKLUSolveInPlace_Private(klu, n, xa, transpose));
  for (k = 0;; k++) {
    PetscReal rmax, bmax;

    for (PetscInt i = 0; i < n; i++) {
      r[i]     = ba[i];
      bound[i] = PetscAbsScalar(ba[i]);
    }
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt e = ia[i]; e < ia[i + 1]; e++) { /* entry (i, ja[e]) of A, or of A^T at (ja[e], i) */
        const PetscInt    row = transpose ? ja[e] : i;
        const PetscScalar p   = a[e] * xa[transpose ? i : ja[e]];

        r[row] -= p;
        if (k) bound[row] += PetscAbsScalar(p);
      }
    /* x_0 of the kept factors is never refined: its check is skipped */
    if (!k) {
      PetscCall(MbsKLUSolveInPlace_Private(klu, n, r, transpose));
      for (PetscInt i = 0; i < n; i++) xa[i] += r[i];
      continue;
    }
    rmax = bmax = 0;
    *refined    = PETSC_TRUE;
    for (PetscInt i = 0; i < n; i++) {
      rmax     = PetscMax(rmax, PetscAbsScalar(r[i]));
      bmax     = PetscMax(bmax, bound[i]);
      *refined = (PetscBool)(*refined && !PetscIsInfOrNanScalar(r[i]));
    }
    *refined = (PetscBool)(*refined && rmax <= MBS_KLU_REFINE_BACKWARD_ERROR * bmax);
    if (*refined || k == klu->reuse) break;
    PetscCall(MbsKLUSolveInPlace_Private(klu, n, r, transpose));
    for (PetscInt i = 0; i < n; i++) xa[i] += r[i];
  }
  PetscCall(VecRestoreArray(x, &xa));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  if (*refined) {
    klu->counts.nsolve++;
    klu->counts.ncorrection += k;
    klu->counts.max_correction = PetscMax(klu->counts.max_correction, k);
    klu->refactor_next         = (PetscBool)(k == klu->reuse); /* the factors are about to lose: fresh ones for the next matrix */
    klu->backoff               = 1;
  } else { /* where the matrices change too fast for the kept factors, the next 1, 2, 4, .. matrices are factored */
    klu->counts.nfail++;
    klu->skip    = klu->backoff;
    klu->backoff = PetscMin(2 * klu->backoff, MBS_KLU_REUSE_MAX_BACKOFF);
  }
  PetscFunctionReturn(0);
}

/* x = A^-1 b (transpose false) or A^-T b: refined on kept factors when they are of an earlier matrix, else (or when
   that fails) by the LU of A */
static PetscErrorCode MbsKLUSolve_Private(PC pc, Vec b, Vec x, PetscBool transpose)
{
  MbsKLU      *klu;
  PetscScalar *xa;
  PetscInt     n;
  PetscBool    refined = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &klu));
  if (klu->stale && klu->reuse) PetscCall(MbsKLURefine_Private(pc, klu, b, x, transpose, &refined));
  if (refined) PetscFunctionReturn(0);
  if (klu->stale) PetscCall(MbsKLUFactorOperator_Private(pc, klu));
  PetscCall(VecCopy(b, x));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArray(x, &xa));
  PetscCall(MbsKLUSolveInPlace_Private(klu, n, xa, transpose));
  PetscCall(VecRestoreArray(x, &xa));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCApply_MbsKLU(PC pc, Vec b, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(MbsKLUSolve_Private(pc, b, x, PETSC_FALSE));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCApplyTranspose_MbsKLU(PC pc, Vec b, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(MbsKLUSolve_Private(pc, b, x, PETSC_TRUE));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsPCSetKLUReuse_MbsKLU(PC pc, PetscInt reuse)
{
  MbsKLU *klu;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &klu));
  if (klu->reuse && !reuse)
    PetscCall(PetscInfo(pc, "KLU reused: %" PetscInt_FMT " matrices, %" PetscInt_FMT " factored; %" PetscInt_FMT " solves refined on kept factors with %" PetscInt_FMT " corrections (at most %" PetscInt_FMT " in one), %" PetscInt_FMT " not refined within %" PetscInt_FMT "\n",
                        klu->counts.nsetup, klu->counts.nfactor, klu->counts.nsolve, klu->counts.ncorrection, klu->counts.max_correction, klu->counts.nfail, klu->reuse));
  if (!klu->reuse && reuse) {
    PetscCall(PetscMemzero(&klu->counts, sizeof(klu->counts)));
    klu->skip    = 0;
    klu->backoff = 1;
  }
  klu->reuse = reuse;
  PetscFunctionReturn(0);
}

static PetscErrorCode PCDestroy_MbsKLU(PC pc)
{
  MbsKLU *klu;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &klu));
  PetscCall(PetscInfo(pc, "KLU: %" PetscInt_FMT " of %" PetscInt_FMT " entries active, %" PetscInt_FMT " in the factors, %" PetscInt_FMT " analyses, %" PetscInt_FMT " factorisations with pivoting, %" PetscInt_FMT " with their pivots reused\n", klu->nactive,
                      klu->nentry, klu->numeric ? (PetscInt)(klu->numeric->lnz + klu->numeric->unz) : 0, klu->nanalysis, klu->nfactor, klu->nrefactor));
  klu_free_numeric(&klu->numeric, &klu->common);
  klu_free_symbolic(&klu->symbolic, &klu->common);
  PetscCall(PetscFree4(klu->ia, klu->ja, klu->entry, klu->value));
  PetscCall(PetscFree2(klu->residual, klu->bound));
  PetscCall(PetscFree(klu->active));
  PetscCall(PetscFree(klu));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "MbsPCSetKLUReuse_C", NULL));
  PetscFunctionReturn(0);
}

/*
  MbsPCSetKLURefactor - Makes pc the direct solve of a sequential AIJ matrix by KLU that reuses its pivots from one
  numeric factorisation to the next while their growth allows (see above). Not collective.
*/
PetscErrorCode MbsPCSetKLURefactor(PC pc)
{
  MbsKLU *klu;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&klu));
  PetscCheck(klu_defaults(&klu->common), PETSC_COMM_SELF, PETSC_ERR_LIB, "KLU's defaults failed");
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetContext(pc, klu));
  PetscCall(PCShellSetName(pc, "KLU, pivots reused"));
  PetscCall(PCShellSetSetUp(pc, PCSetUp_MbsKLU));
  PetscCall(PCShellSetApply(pc, PCApply_MbsKLU));
  PetscCall(PCShellSetApplyTranspose(pc, PCApplyTranspose_MbsKLU));
  PetscCall(PCShellSetDestroy(pc, PCDestroy_MbsKLU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "MbsPCSetKLUReuse_C", MbsPCSetKLUReuse_MbsKLU));
  PetscFunctionReturn(0);
}

/*
  MbsPCGetKLUCounts - How often the KLU of MbsPCSetKLURefactor() analysed a pattern, factored with pivoting, and
  refactored with its pivots reused. Not collective.
*/
PetscErrorCode MbsPCGetKLUCounts(PC pc, PetscInt *nanalysis, PetscInt *nfactor, PetscInt *nrefactor)
{
  MbsKLU *klu;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &klu));
  *nanalysis = klu->nanalysis;
  *nfactor   = klu->nfactor;
  *nrefactor = klu->nrefactor;
  PetscFunctionReturn(0);
}

/*
  MbsPCSetKLUReuse - With reuse > 0, the KLU of MbsPCSetKLURefactor() keeps its factors when its matrix changes and
  solves with the new matrix by iterative refinement on them, to a normwise backward error of a few units of rounding
  (as accurate as a fresh LU), with at most reuse corrections; a solve that needs them all has the next matrix
  factored, one they do not refine is solved again by the LU of its own matrix. reuse = 0 (the default) factors every
  matrix; setting it ends the counts of MbsPCGetKLUReuseCounts() (reported by -info). Any other PC is left alone. Not
  collective.
*/
PetscErrorCode MbsPCSetKLUReuse(PC pc, PetscInt reuse)
{
  PetscErrorCode (*set)(PC, PetscInt) = NULL;

  PetscFunctionBeginUser;
  PetscCheck(reuse >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "KLU's reuse takes a number of corrections >= 0, not %" PetscInt_FMT, reuse);
  PetscCall(PetscObjectQueryFunction((PetscObject)pc, "MbsPCSetKLUReuse_C", &set));
  if (set) PetscCall((*set)(pc, reuse));
  PetscFunctionReturn(0);
}

/*
  MbsPCGetKLUReuseCounts - What the KLU of MbsPCSetKLURefactor() did since MbsPCSetKLUReuse() turned the reuse on. Not
  collective.
*/
PetscErrorCode MbsPCGetKLUReuseCounts(PC pc, MbsKLUReuseCounts *counts)
{
  MbsKLU *klu;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &klu));
  *counts = klu->counts;
  PetscFunctionReturn(0);
}

/*
  MbsTSSetKLUReuse - MbsPCSetKLUReuse() on the linear solve of the nonlinear solver of ts (nothing for a PC that is not
  MbsPCSetKLURefactor()'s). Not collective.
*/
PetscErrorCode MbsTSSetKLUReuse(TS ts, PetscInt reuse)
{
  SNES snes;
  KSP  ksp;
  PC   pc;

  PetscFunctionBeginUser;
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(MbsPCSetKLUReuse(pc, reuse));
  PetscFunctionReturn(0);
}
