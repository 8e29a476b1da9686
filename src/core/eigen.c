/*
  Eigenfrequencies and damping ratios of the linearised model, (lambda^2 M + lambda C + K) x = 0, with SLEPc's
  PEP. Small models get every eigenvalue (PEPLINEAR on a dense LAPACK solve); -pep_type, -pep_nev, -pep_target,
  -st_type sinvert and the other -pep_* / -st_* options select other solvers, e.g. TOAR with shift-and-invert
  for the modes near a target.

  A complex pair lambda = -zeta w +- i w sqrt(1 - zeta^2) is one oscillatory mode: natural frequency |lambda|/2pi,
  damping ratio -Re lambda/|lambda|, reported once (Im lambda > 0). Real eigenvalues (overdamped motion,
  relaxation) are listed apart. Rigid-body (zero) modes are those of size below 1e-8 max|lambda| or below
  1e-6 sqrt(|K|/|M|) (Frobenius norms), real or not: a double zero (a free rigid motion, K singular) comes out of the
  solver split into a pair of size sqrt(rounding) sqrt(|K|/|M|) (1.5e-8 for the free roll of beam_bushings.md, 6e-8
  measured), often complex and with either sign of its real part, which is neither a mode nor an instability. Mode shapes are
  scaled so that their largest component is 1. Massless coordinates (singular M) add infinite eigenvalues, which
  are set aside (MbsEigenMarkInfinite_Private).
*/
#include "core/coreimpl.h"
#include <slepcpep.h>

PetscErrorCode MbsEigenResultReset(MbsEigenResult *result)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(result->frequency_hz, result->damping_ratio, result->modes));
  PetscCall(PetscFree2(result->real_eigenvalues, result->lambda));
  PetscCall(PetscFree3(result->modes_z, result->undamped_hz, result->undamped_z));
  PetscCall(PetscFree(result->z_coordinates));
  PetscCall(PetscFree2(result->energy_share, result->undamped_share));
  PetscCall(PetscFree(result->families));
  PetscCall(PetscMemzero(result, sizeof(*result)));
  PetscFunctionReturn(0);
}

/* Sorts the oscillatory modes by frequency, carrying their damping ratios and shapes along */
static void MbsEigenSort_Private(MbsEigenResult *result)
{
  PetscInt nq = result->nq;

  for (PetscInt i = 1; i < result->nmode; i++) {
    for (PetscInt j = i; j > 0 && result->frequency_hz[j - 1] > result->frequency_hz[j]; j--) {
      PetscReal tmp = result->frequency_hz[j];

      result->frequency_hz[j]      = result->frequency_hz[j - 1];
      result->frequency_hz[j - 1]  = tmp;
      tmp                          = result->damping_ratio[j];
      result->damping_ratio[j]     = result->damping_ratio[j - 1];
      result->damping_ratio[j - 1] = tmp;
      for (PetscInt k = 0; k < 2 * nq; k++) {
        tmp                                 = result->modes[j * 2 * nq + k];
        result->modes[j * 2 * nq + k]       = result->modes[(j - 1) * 2 * nq + k];
        result->modes[(j - 1) * 2 * nq + k] = tmp;
      }
    }
  }
  for (PetscInt i = 1; i < result->nreal; i++)
    for (PetscInt j = i; j > 0 && result->real_eigenvalues[j - 1] < result->real_eigenvalues[j]; j--) {
      PetscReal tmp                   = result->real_eigenvalues[j];
      result->real_eigenvalues[j]     = result->real_eigenvalues[j - 1];
      result->real_eigenvalues[j - 1] = tmp;
    }
  for (PetscInt i = 1; i < result->nlambda; i++)
    for (PetscInt j = i; j > 0; j--) {
      PetscReal *a = result->lambda + 2 * (j - 1), *b = result->lambda + 2 * j, ma = PetscSqrtReal(a[0] * a[0] + a[1] * a[1]), mb = PetscSqrtReal(b[0] * b[0] + b[1] * b[1]), tmp;

      /* a conjugate pair's moduli may differ in the last bit: within 1e-12 they tie, and Im > 0 comes first */
      if (ma < mb - 1e-12 * mb || (PetscAbsReal(ma - mb) <= 1e-12 * mb && a[1] >= b[1])) break;
      for (PetscInt k = 0; k < 2; k++) {
        tmp  = a[k];
        a[k] = b[k];
        b[k] = tmp;
      }
    }
}

/*
  A coordinate without mass (a row of M that is zero: the massless node of a Maxwell element) obeys a first-order
  equation, so det(lambda^2 M + lambda C + K) has one degree less per such coordinate and the linearisation of size
  2 nq has that many infinite eigenvalues. A dense solve returns them as Inf or as huge numbers; they are the
  largest ones, apart from the finite spectrum by many orders of magnitude. They are marked, never perturbed away by
  a small mass. An eigensolver that targets part of the spectrum may not return them at all.
*/
static PetscErrorCode MbsEigenMarkInfinite_Private(PetscInt nq, const PetscReal M[], PetscInt nconv, const PetscReal modulus[], PetscBool infinite[])
{
  PetscInt nmassless = 0, ninfinite = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nq; i++) {
    PetscBool zero = PETSC_TRUE;

    for (PetscInt j = 0; j < nq; j++) zero = (PetscBool)(zero && MBS_IJ(M, i, j, nq) == 0);
    nmassless += zero;
  }
  for (PetscInt i = 0; i < nconv; i++) ninfinite += infinite[i];
  if (ninfinite < nmassless) { /* the largest finite moduli, if they stand apart from the rest */
    PetscInt   want = nmassless - ninfinite, *order;
    PetscReal *sorted;

    PetscCall(PetscMalloc2(nconv, &order, nconv, &sorted));
    for (PetscInt i = 0; i < nconv; i++) {
      order[i]  = i;
      sorted[i] = infinite[i] ? -1 : -modulus[i]; /* ascending: the largest finite first */
    }
    PetscCall(PetscSortRealWithPermutation(nconv, sorted, order));
    if (want < nconv - ninfinite && modulus[order[want - 1]] > 1e8 * modulus[order[want]]) {
      for (PetscInt k = 0; k < want; k++) infinite[order[k]] = PETSC_TRUE;
      ninfinite += want;
    }
    PetscCall(PetscFree2(order, sorted));
  }
  PetscCall(PetscInfo(NULL, "Eigen: %" PetscInt_FMT " massless coordinates, %" PetscInt_FMT " infinite eigenvalues set aside\n", nmassless, ninfinite));
  PetscFunctionReturn(0);
}

/* z = T x (complex, x and z as (re, im) pairs); returns the index of the component of largest modulus */
static PetscInt MbsEigenMap_Private(PetscInt nq, PetscInt nz, const PetscReal T[], const PetscReal x[], PetscReal z[])
{
  PetscInt peak = 0;

  for (PetscInt i = 0; i < nz; i++) {
    z[2 * i] = z[2 * i + 1] = 0;
    for (PetscInt k = 0; k < nq; k++) {
      z[2 * i] += T[i + k * nz] * x[2 * k];
      z[2 * i + 1] += T[i + k * nz] * x[2 * k + 1];
    }
    if (PetscSqr(z[2 * i]) + PetscSqr(z[2 * i + 1]) > PetscSqr(z[2 * peak]) + PetscSqr(z[2 * peak + 1])) peak = i;
  }
  return peak;
}

/* z *= (cr + i ci) */
static void MbsEigenScale_Private(PetscInt nz, PetscReal cr, PetscReal ci, PetscReal z[])
{
  for (PetscInt i = 0; i < nz; i++) {
    PetscReal ar = z[2 * i], ai = z[2 * i + 1];

    z[2 * i]     = ar * cr - ai * ci;
    z[2 * i + 1] = ar * ci + ai * cr;
  }
}

/* share[f] = Re(x^H M_F x) / sum_F Re(x^H M_F x) of the complex x (nq (re, im) pairs) */
static void MbsEigenShares_Private(PetscInt nq, PetscInt nfamily, const PetscReal MF[], const PetscReal x[], PetscReal share[])
{
  PetscReal total = 0;

  for (PetscInt f = 0; f < nfamily; f++) {
    share[f] = 0;
    for (PetscInt i = 0; i < nq; i++)
      for (PetscInt j = 0; j < nq; j++) share[f] += MF[f * nq * nq + i + j * nq] * (x[2 * i] * x[2 * j] + x[2 * i + 1] * x[2 * j + 1]);
    total += share[f];
  }
  for (PetscInt f = 0; f < nfamily; f++) share[f] /= total;
}

/* The kinetic-energy shares by family (MbsModelEnergyFamilies) of the damped and the undamped modes */
static PetscErrorCode MbsEigenEnergyShares_Private(MbsModel model, MbsEigenResult *result, const MbsEigenResult *undamped)
{
  PetscReal *MF;
  PetscInt   nf;

  PetscFunctionBeginUser;
  PetscCall(MbsModelEnergyFamilies(model, &nf, &MF, &result->families));
  result->nfamily = nf;
  if (!nf) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(nf * result->nmode, &result->energy_share, nf * undamped->nmode, &result->undamped_share));
  for (PetscInt i = 0; i < result->nmode; i++) MbsEigenShares_Private(result->nq, nf, MF, result->modes + 2 * result->nq * i, result->energy_share + nf * i);
  for (PetscInt i = 0; i < undamped->nmode; i++) MbsEigenShares_Private(result->nq, nf, MF, undamped->modes + 2 * result->nq * i, result->undamped_share + nf * i);
  PetscCall(PetscFree(MF));
  PetscFunctionReturn(0);
}

/*
  The shapes in body coordinates z = T x that powertrain_mounts.md 8.1 asks for: each damped mode scaled so that its z
  component of largest modulus is 1, and the undamped modes (K phi = w^2 M phi, C removed; the same dense solve) scaled
  to phi^T M_z phi = 1 with that component positive. T is a rigid motion of every body, under which the kinetic
  energies agree, x^H M x = z^H M_z z: the mass-normalisation is taken in the model's coordinates.
*/
static PetscErrorCode MbsEigenBodyCoordinates_Private(MbsModel model, PetscInt nq, const PetscReal M[], const PetscReal K[], const char prefix[], MbsEigenResult *result, PetscReal *zero, MbsEigenResult *undamped)
{
  PetscReal *T, *z;
  PetscInt   nz;

  PetscFunctionBeginUser;
  PetscCall(MbsModelModeCoordinates(model, &nz, &T, &result->z_coordinates));
  if (!nz) PetscFunctionReturn(0);
  result->nz = nz;
  PetscCall(MbsEigenComputeOperators(nq, M, zero, K, prefix, undamped));
  result->nundamped = undamped->nmode;
  PetscCall(PetscMalloc3(2 * nz * result->nmode, &result->modes_z, undamped->nmode, &result->undamped_hz, nz * undamped->nmode, &result->undamped_z));
  PetscCall(PetscMalloc1(2 * nz, &z));
  for (PetscInt i = 0; i < result->nmode; i++) {
    PetscReal *zi   = result->modes_z + 2 * nz * i;
    PetscInt   peak = MbsEigenMap_Private(nq, nz, T, result->modes + 2 * nq * i, zi);
    PetscReal  d    = PetscSqr(zi[2 * peak]) + PetscSqr(zi[2 * peak + 1]);

    MbsEigenScale_Private(nz, zi[2 * peak] / d, -zi[2 * peak + 1] / d, zi);
  }
  for (PetscInt i = 0; i < undamped->nmode; i++) {
    const PetscReal *x    = undamped->modes + 2 * nq * i;
    PetscInt         peak = MbsEigenMap_Private(nq, nz, T, x, z);
    PetscReal        mass = 0, size = PetscSqrtReal(PetscSqr(z[2 * peak]) + PetscSqr(z[2 * peak + 1]));

    for (PetscInt j = 0; j < nq; j++)
      for (PetscInt k = 0; k < nq; k++) mass += M[j + k * nq] * (x[2 * j] * x[2 * k] + x[2 * j + 1] * x[2 * k + 1]);
    /* turn the largest component onto the positive real axis: the rest is then real up to rounding */
    MbsEigenScale_Private(nz, z[2 * peak] / (size * PetscSqrtReal(mass)), -z[2 * peak + 1] / (size * PetscSqrtReal(mass)), z);
    result->undamped_hz[i] = undamped->frequency_hz[i];
    for (PetscInt k = 0; k < nz; k++) result->undamped_z[nz * i + k] = z[2 * k];
  }
  PetscCall(PetscFree(z));
  PetscCall(PetscFree(T));
  PetscCall(MbsEigenEnergyShares_Private(model, result, undamped));
  PetscFunctionReturn(0);
}

/*@C
  MbsEigenCompute - The modes of the model's linearisation at its current parameters: of M, C, K by a PEP, or for a
  model with internal states of its first-order form by an EPS (MbsEigenComputeFirstOrder()), which read the options with
  the given prefix (NULL: -pep_*, -eps_*, -st_*). The undamped modes are those of M and K (internal states held). Not
  collective.
@*/
PetscErrorCode MbsEigenCompute(MbsModel model, const char prefix[], MbsEigenResult *result)
{
  PetscInt       nq, N;
  PetscReal     *M, *C, *K, *A, *B;
  MbsEigenResult undamped;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&undamped, sizeof(undamped)));
  PetscCall(MbsModelLinearize(model, &nq, &M, &C, &K));
  PetscCall(MbsModelLinearizeFirstOrder(model, &N, &A, &B));
  if (N) PetscCall(MbsEigenComputeFirstOrder(nq, N, A, B, prefix, result)); /* internal states: M, C, K hold them */
  else PetscCall(MbsEigenComputeOperators(nq, M, C, K, prefix, result));
  PetscCall(PetscFree2(A, B));
  PetscCall(PetscArrayzero(C, nq * nq));
  MbsCallCleanup(MbsEigenBodyCoordinates_Private(model, nq, M, K, prefix, result, C, &undamped), MbsEigenResultReset(&undamped));
  PetscCall(PetscFree3(M, C, K));
  PetscFunctionReturn(0);
}

/* An eigenpair of the solver (a PEP or an EPS): eigenvalue kr + i ki and vector xr + i xi (may be NULL) */
typedef PetscErrorCode (*MbsEigenPairFn)(void *, PetscInt, PetscScalar *, PetscScalar *, Vec, Vec);

static PetscErrorCode MbsEigenPairPEP_Private(void *pep, PetscInt i, PetscScalar *kr, PetscScalar *ki, Vec xr, Vec xi)
{
  return PEPGetEigenpair((PEP)pep, i, kr, ki, xr, xi);
}

static PetscErrorCode MbsEigenPairEPS_Private(void *eps, PetscInt i, PetscScalar *kr, PetscScalar *ki, Vec xr, Vec xi)
{
  return EPSGetEigenpair((EPS)eps, i, kr, ki, xr, xi);
}

/*
  The modes, real and rigid-body eigenvalues of nconv converged eigenpairs of the solver, whose vectors' first nq
  components are the coordinates; the zero rows of mass (N x N: M of the quadratic form, B of the first-order one) say
  how many eigenvalues are infinite; a modulus up to max(1e-8 of the largest, zero_floor) is a rigid-body zero
*/
static PetscErrorCode MbsEigenCollect_Private(void *solver, MbsEigenPairFn pair, PetscInt nconv, PetscInt nq, PetscInt N, const PetscReal mass[], PetscReal zero_floor, Vec xr, Vec xi, MbsEigenResult *result)
{
  PetscReal  scale = 0, *modulus_of, zero;
  PetscBool *infinite;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(nconv, &result->frequency_hz, nconv, &result->damping_ratio, 2 * nq * nconv, &result->modes));
  PetscCall(PetscMalloc2(nconv, &result->real_eigenvalues, 2 * nconv, &result->lambda));
  PetscCall(PetscMalloc2(nconv, &modulus_of, nconv, &infinite));
  for (PetscInt i = 0; i < nconv; i++) {
    PetscScalar kr, ki;

    PetscCall(pair(solver, i, &kr, &ki, NULL, NULL));
    modulus_of[i] = PetscSqrtReal(PetscRealPart(kr) * PetscRealPart(kr) + PetscRealPart(ki) * PetscRealPart(ki));
    infinite[i]   = (PetscBool) !(modulus_of[i] < PETSC_INFINITY);
  }
  PetscCall(MbsEigenMarkInfinite_Private(N, mass, nconv, modulus_of, infinite));
  for (PetscInt i = 0; i < nconv; i++)
    if (!infinite[i]) scale = PetscMax(scale, modulus_of[i]);
  zero = PetscMax(1e-8 * scale, zero_floor);
  for (PetscInt i = 0; i < nconv; i++) {
    PetscScalar        kr, ki;
    PetscReal          re, im, modulus, peak = 0;
    const PetscScalar *vr, *vi;
    PetscInt           ipeak = 0;

    if (infinite[i]) continue;
    PetscCall(pair(solver, i, &kr, &ki, xr, xi));
    re                                      = PetscRealPart(kr);
    im                                      = PetscRealPart(ki);
    modulus                                 = PetscSqrtReal(re * re + im * im);
    result->lambda[2 * result->nlambda]     = re;
    result->lambda[2 * result->nlambda + 1] = im;
    result->nlambda++;
    if (modulus <= zero) {
      result->nzero++;
      result->real_eigenvalues[result->nreal++] = 0;
      continue;
    }
    if (im < -1e-12 * scale) continue; /* the conjugate of a reported mode */
    if (PetscAbsReal(im) <= 1e-12 * scale) {
      result->real_eigenvalues[result->nreal++] = re;
      continue;
    }
    result->frequency_hz[result->nmode]  = modulus / (2 * PETSC_PI);
    result->damping_ratio[result->nmode] = -re / modulus;
    PetscCall(VecGetArrayRead(xr, &vr));
    PetscCall(VecGetArrayRead(xi, &vi));
    for (PetscInt k = 0; k < nq; k++) {
      PetscReal size = PetscSqrtReal(PetscSqr(PetscRealPart(vr[k])) + PetscSqr(PetscRealPart(vi[k])));

      if (size > peak) {
        peak  = size;
        ipeak = k;
      }
    }
    for (PetscInt k = 0; k < nq; k++) { /* x / x[ipeak], complex division */
      PetscReal ar = PetscRealPart(vr[k]), ai = PetscRealPart(vi[k]), br = PetscRealPart(vr[ipeak]), bi = PetscRealPart(vi[ipeak]), d = br * br + bi * bi;

      result->modes[result->nmode * 2 * nq + 2 * k]     = (ar * br + ai * bi) / d;
      result->modes[result->nmode * 2 * nq + 2 * k + 1] = (ai * br - ar * bi) / d;
    }
    PetscCall(VecRestoreArrayRead(xi, &vi));
    PetscCall(VecRestoreArrayRead(xr, &vr));
    result->nmode++;
  }
  result->unstable = PETSC_FALSE;
  for (PetscInt i = 0; i < result->nmode; i++) result->unstable = (PetscBool)(result->unstable || result->damping_ratio[i] < -1e-12);
  for (PetscInt i = 0; i < result->nreal; i++) result->unstable = (PetscBool)(result->unstable || result->real_eigenvalues[i] > 1e-12 * scale);
  MbsEigenSort_Private(result);
  PetscCall(PetscFree2(modulus_of, infinite));
  PetscFunctionReturn(0);
}

/* A rigid-body zero of a singular K comes out of the solver at rounding of the stiffness scale: 1e-6 sqrt(|K| / |M|) */
static PetscReal MbsEigenRigidZeroFloor_Private(PetscInt nq, const PetscReal M[], const PetscReal K[])
{
  PetscReal stiffness = 0, mass = 0;

  for (PetscInt i = 0; i < nq * nq; i++) {
    stiffness += PetscSqr(K[i]);
    mass += PetscSqr(M[i]);
  }
  return mass > 0 ? 1e-6 * PetscPowReal(stiffness / mass, 0.25) : 0;
}

/*@C
  MbsEigenComputeOperators - The modes of (lambda^2 M + lambda C + K) x = 0 (nq x nq, column-major), e.g. of a closed
  loop (MbsModelLinearizeClosedLoop()). Not collective.
@*/
PetscErrorCode MbsEigenComputeOperators(PetscInt nq, const PetscReal M[], const PetscReal C[], const PetscReal K[], const char prefix[], MbsEigenResult *result)
{
  PetscInt  nconv;
  Mat       A[3];
  PEP       pep;
  EPS       eps;
  ST        st;
  Vec       xr, xi;
  PetscBool linear;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(result, sizeof(*result)));
  result->nq = nq;
  for (PetscInt k = 0; k < 3; k++) { /* the PEP's operators own copies */
    const PetscReal *coefficient = k == 0 ? K : k == 1 ? C : M;
    PetscScalar     *a;

    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, nq, nq, NULL, &A[k]));
    PetscCall(MatDenseGetArrayWrite(A[k], &a));
    for (PetscInt i = 0; i < nq * nq; i++) a[i] = coefficient[i];
    PetscCall(MatDenseRestoreArrayWrite(A[k], &a));
  }
  PetscCall(PEPCreate(PETSC_COMM_SELF, &pep));
  PetscCall(PEPSetOptionsPrefix(pep, prefix));
  PetscCall(PEPSetOperators(pep, 3, A));
  PetscCall(PEPSetProblemType(pep, PEP_GENERAL));
  PetscCall(PEPSetType(pep, PEPLINEAR));
  PetscCall(PEPSetDimensions(pep, 2 * nq, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(PEPSetTolerances(pep, 1e-12, PETSC_DEFAULT));
  PetscCall(PEPLinearSetExplicitMatrix(pep, PETSC_TRUE)); /* the dense solve needs the linearisation assembled */
  PetscCall(PEPLinearGetEPS(pep, &eps));
  PetscCall(EPSSetType(eps, EPSLAPACK));
  PetscCall(PEPGetST(pep, &st));
  PetscCall(PEPSetFromOptions(pep));
  PetscCall(PetscObjectTypeCompare((PetscObject)pep, PEPLINEAR, &linear));
  PetscCall(PEPSolve(pep));
  PetscCall(PEPGetConverged(pep, &nconv));
  PetscCall(MatCreateVecs(A[0], &xr, &xi));

  PetscCall(MbsEigenCollect_Private(pep, MbsEigenPairPEP_Private, nconv, nq, nq, M, MbsEigenRigidZeroFloor_Private(nq, M, K), xr, xi, result));
  PetscCall(PetscInfo(NULL, "Eigen: %" PetscInt_FMT " of %" PetscInt_FMT " eigenvalues converged (%s)\n", nconv, 2 * nq, linear ? "all, dense" : "selected"));

  PetscCall(VecDestroy(&xi));
  PetscCall(VecDestroy(&xr));
  PetscCall(PEPDestroy(&pep));
  for (PetscInt i = 0; i < 3; i++) PetscCall(MatDestroy(&A[i]));
  PetscFunctionReturn(0);
}

/* The family with the largest share (its name, of the comma-separated result->families) into name */
static PetscErrorCode MbsEigenFamilyOf_Private(const MbsEigenResult *result, const PetscReal share[], char name[], size_t size)
{
  const char *start = result->families, *end;
  PetscInt    best  = 0;

  PetscFunctionBeginUser;
  for (PetscInt f = 1; f < result->nfamily; f++)
    if (share[f] > share[best]) best = f;
  for (PetscInt f = 0; f < best; f++) start = strchr(start, ',') + 2;
  end = strchr(start, ',');
  PetscCall(PetscStrncpy(name, start, end ? PetscMin(size, (size_t)(end - start + 1)) : size));
  PetscFunctionReturn(0);
}

/* The shares of one mode, then its family */
static PetscErrorCode MbsEigenViewShares_Private(MPI_Comm comm, const MbsEigenResult *result, const PetscReal share[])
{
  char name[64] = "";

  PetscFunctionBeginUser;
  for (PetscInt f = 0; f < result->nfamily; f++) PetscCall(PetscPrintf(comm, " %9.6f", (double)(PetscAbsReal(share[f]) < 5e-7 ? 0 : share[f]))); /* no -0.000000 of rounding */
  if (result->nfamily) PetscCall(MbsEigenFamilyOf_Private(result, share, name, sizeof(name)));
  PetscCall(PetscPrintf(comm, "%s%s\n", result->nfamily ? "  " : "", name));
  PetscFunctionReturn(0);
}

/*@C
  MbsEigenComputeFirstOrder - The modes of A x = lambda B x (N x N, column-major), a first-order linearisation whose
  first nq components are the coordinates (MbsModelLinearizeFirstOrder(): a model with internal states), with SLEPc's
  EPS: every eigenvalue by a dense LAPACK solve; -eps_* and -st_* options (with the prefix) select other solvers. Not
  collective.
@*/
PetscErrorCode MbsEigenComputeFirstOrder(PetscInt nq, PetscInt N, const PetscReal A[], const PetscReal B[], const char prefix[], MbsEigenResult *result)
{
  PetscInt nconv;
  Mat      op[2];
  EPS      eps;
  Vec      xr, xi;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(result, sizeof(*result)));
  result->nq = nq;
  for (PetscInt k = 0; k < 2; k++) { /* the EPS's operators own copies */
    PetscScalar *a;

    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, N, N, NULL, &op[k]));
    PetscCall(MatDenseGetArrayWrite(op[k], &a));
    for (PetscInt i = 0; i < N * N; i++) a[i] = k ? B[i] : A[i];
    PetscCall(MatDenseRestoreArrayWrite(op[k], &a));
  }
  PetscCall(EPSCreate(PETSC_COMM_SELF, &eps));
  PetscCall(EPSSetOptionsPrefix(eps, prefix));
  PetscCall(EPSSetOperators(eps, op[0], op[1]));
  PetscCall(EPSSetProblemType(eps, EPS_GNHEP));
  PetscCall(EPSSetType(eps, EPSLAPACK));
  PetscCall(EPSSetDimensions(eps, N, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(EPSSetTolerances(eps, 1e-12, PETSC_DEFAULT));
  PetscCall(EPSSetFromOptions(eps));
  PetscCall(EPSSolve(eps));
  PetscCall(EPSGetConverged(eps, &nconv));
  PetscCall(MatCreateVecs(op[0], &xr, &xi));
  PetscCall(MbsEigenCollect_Private(eps, MbsEigenPairEPS_Private, nconv, nq, N, B, 0, xr, xi, result));
  PetscCall(PetscInfo(NULL, "Eigen: %" PetscInt_FMT " of %" PetscInt_FMT " eigenvalues of the first-order form converged\n", nconv, N));
  PetscCall(VecDestroy(&xi));
  PetscCall(VecDestroy(&xr));
  PetscCall(EPSDestroy(&eps));
  for (PetscInt k = 0; k < 2; k++) PetscCall(MatDestroy(&op[k]));
  PetscFunctionReturn(0);
}

/*@C
  MbsEigenView - The table of modes: frequency [Hz] and damping ratio, real eigenvalues, rigid-body modes. Collective on comm.
@*/
PetscErrorCode MbsEigenView(MPI_Comm comm, const MbsEigenResult *result)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "  mode   frequency [Hz]   damping ratio%s%s\n", result->nfamily ? "   kinetic energy shares: " : "", result->nfamily ? result->families : ""));
  for (PetscInt i = 0; i < result->nmode; i++) {
    PetscCall(PetscPrintf(comm, "  %4" PetscInt_FMT "   %14.8g   %13.6e", i + 1, (double)result->frequency_hz[i], (double)result->damping_ratio[i]));
    PetscCall(MbsEigenViewShares_Private(comm, result, result->nfamily ? result->energy_share + result->nfamily * i : NULL));
  }
  for (PetscInt i = 0; i < result->nreal; i++) {
    if (result->real_eigenvalues[i] == 0) PetscCall(PetscPrintf(comm, "  real eigenvalue 0 (rigid-body mode)\n"));
    else PetscCall(PetscPrintf(comm, "  real eigenvalue %.8e 1/s\n", (double)result->real_eigenvalues[i]));
  }
  for (PetscInt i = 0; i < result->nundamped; i++) {
    PetscCall(PetscPrintf(comm, "%s  %4" PetscInt_FMT "   %14.8g%s", i ? "" : "  without damping (K phi = w^2 M phi):\n  mode   frequency [Hz]\n", i + 1, (double)result->undamped_hz[i], result->nfamily ? "                " : ""));
    PetscCall(MbsEigenViewShares_Private(comm, result, result->nfamily ? result->undamped_share + result->nfamily * i : NULL));
  }
  if (result->unstable) PetscCall(PetscPrintf(comm, "  WARNING: the linearised system is unstable (an eigenvalue with positive real part)\n"));
  PetscFunctionReturn(0);
}

/*@C
  MbsEigenViewEigenvalues - Every finite eigenvalue: Re, Im, |lambda|, damping ratio -Re/|lambda|, damped frequency
  |Im|/2pi; with a reference (e.g. the open loop), the shift from its nearest eigenvalue. Collective on comm.
@*/
PetscErrorCode MbsEigenViewEigenvalues(MPI_Comm comm, const MbsEigenResult *result, const MbsEigenResult *reference)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "        Re lambda [1/s]        Im lambda [1/s]     |lambda| [rad/s]   damping ratio  damped freq [Hz]%s\n", reference ? "   shift from open loop (re, im) [1/s]" : ""));
  for (PetscInt i = 0; i < result->nlambda; i++) {
    const PetscReal re = result->lambda[2 * i], im = result->lambda[2 * i + 1], modulus = PetscSqrtReal(re * re + im * im);

    PetscCall(PetscPrintf(comm, "  %21.14e  %21.14e  %19.14e  %14.8e  %16.10e", (double)re, (double)im, (double)modulus, (double)(modulus > 0 ? -re / modulus : 0), (double)(PetscAbsReal(im) / (2 * PETSC_PI))));
    if (reference && reference->nlambda) {
      PetscInt  nearest = 0;
      PetscReal best    = PETSC_MAX_REAL;

      for (PetscInt k = 0; k < reference->nlambda; k++) {
        PetscReal distance = PetscSqr(reference->lambda[2 * k] - re) + PetscSqr(reference->lambda[2 * k + 1] - im);

        if (distance < best) {
          best    = distance;
          nearest = k;
        }
      }
      PetscCall(PetscPrintf(comm, "   %+.6e %+.6e", (double)(re - reference->lambda[2 * nearest]), (double)(im - reference->lambda[2 * nearest + 1])));
    }
    PetscCall(PetscPrintf(comm, "\n"));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsEigenWrite - <group>/{frequency_hz, damping_ratio, real_eigenvalues, modes (mode x coordinate x re,im)}. Not collective.
@*/
PetscErrorCode MbsEigenWrite(MbsH5Writer *writer, const char group[], const MbsEigenResult *result)
{
  char     path[128], text[32];
  PetscInt dims[3] = {result->nmode, result->nq, 2}, lambda_dims[2] = {result->nlambda, 2};

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/frequency_hz", group));
  PetscCall(MbsH5WriteReals(writer, path, 1, &result->nmode, result->frequency_hz, "Hz"));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/damping_ratio", group));
  PetscCall(MbsH5WriteReals(writer, path, 1, &result->nmode, result->damping_ratio, "1"));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/real_eigenvalues", group));
  PetscCall(MbsH5WriteReals(writer, path, 1, &result->nreal, result->real_eigenvalues, "1/s"));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/eigenvalues", group));
  PetscCall(MbsH5WriteReals(writer, path, 2, lambda_dims, result->lambda, "1/s (re, im; every finite eigenvalue, by modulus)"));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/modes", group));
  PetscCall(MbsH5WriteReals(writer, path, 3, dims, result->modes, "1 (largest component 1; re, im)"));
  PetscCall(PetscSNPrintf(text, sizeof(text), "%" PetscInt_FMT, result->nzero));
  PetscCall(MbsH5WriteAttribute(writer, path, "rigid_body_modes", text));
  PetscCall(MbsH5WriteAttribute(writer, path, "unstable", result->unstable ? "yes" : "no"));
  if (result->nz) {
    PetscInt zdims[3] = {result->nmode, result->nz, 2}, udims[2] = {result->nundamped, result->nz};

    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/modes_z", group));
    PetscCall(MbsH5WriteReals(writer, path, 3, zdims, result->modes_z, "1 (body coordinates, see attribute coordinates; the component of largest modulus 1; re, im)"));
    PetscCall(MbsH5WriteAttribute(writer, path, "coordinates", result->z_coordinates));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/undamped_frequency_hz", group));
    PetscCall(MbsH5WriteReals(writer, path, 1, &result->nundamped, result->undamped_hz, "Hz"));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/undamped_modes_z", group));
    PetscCall(MbsH5WriteReals(writer, path, 2, udims, result->undamped_z, "kg^-1/2 (u), kg^-1/2 m^-1 (phi) (body coordinates, see attribute coordinates; phi^T M_z phi = 1, the component of largest modulus positive)"));
    PetscCall(MbsH5WriteAttribute(writer, path, "coordinates", result->z_coordinates));
  }
  if (result->nfamily) {
    PetscInt sdims[2] = {result->nmode, result->nfamily}, udims[2] = {result->nundamped, result->nfamily};

    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/energy_share", group));
    PetscCall(MbsH5WriteReals(writer, path, 2, sdims, result->energy_share, "1 (share of each family of attribute families in the mode's kinetic energy; a row sums to 1)"));
    PetscCall(MbsH5WriteAttribute(writer, path, "families", result->families));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/undamped_energy_share", group));
    PetscCall(MbsH5WriteReals(writer, path, 2, udims, result->undamped_share, "1 (the same for the undamped modes of undamped_frequency_hz)"));
    PetscCall(MbsH5WriteAttribute(writer, path, "families", result->families));
  }
  PetscFunctionReturn(0);
}
