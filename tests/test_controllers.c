static const char help[] = "Black-box controllers: the tables of ../shared/models/pid_sdof.md, section 5, and the closed-loop modes of section 6.\n"
                           "Options: -controller_library PATH loads the test controllers from the plug-in (default: the built-in copies).\n";

/*
  Every quantity of the spec's section 8, with its tolerance, against independent truth:
    T1, T2, T-Eq52   the exact rational increments and gains (1e-12), both protocols of T-Eq52
    T3, T4, T5       the true gains K_p = 100, K_i = 20, K_d = 6 (1e-6; K_d in T4 1e-10); T4's unperturbed outputs
                     against the PID law summed here over the sampled sine, and against a run without perturbations
                     (bit for bit); T5's collapse times {0.2, 0.3, 0.7, 0.8} s
    partitioned      n = 4 against n = 1 in T3 and T4 (1e-5; K_d 1e-9)
    closed loop      the spec's matrices; the roots of m l^3 + (c + K_d) l^2 + (k + K_p) l + K_i (Cardano, polished by
                     Newton on the polynomial), of the quadratics without the integral and of the open loop, and a dense
                     LAPACK solve of the linearisation [0 I; -K -C] v = l [I 0; 0 M] v: 1e-9 with the true gains, 1e-7
                     with the T3 estimates
    in the loop      pid_sdof driven by the controller: the run with perturbations equals the run without, bit for bit
*/
#include "mbstest.h"
#include <slepceps.h>

typedef struct {
  char library[PETSC_MAX_PATH_LEN]; /* empty: built-in */
} Source;

static PetscErrorCode Load(const Source *source, const char name[], PetscInt n, const PetscReal params[], MbsController *c)
{
  PetscFunctionBeginUser;
  PetscCall(MbsControllerCreate(PETSC_COMM_WORLD, c));
  PetscCall(MbsControllerLoad(*c, source->library[0] ? source->library : name, name));
  PetscCall(MbsControllerSetParams(*c, n, params));
  PetscFunctionReturn(0);
}

/* One estimate right after init(0, 0) */
static PetscErrorCode EstimateAtRest(const Source *source, const char name[], PetscInt n, const PetscReal params[], const MbsPerturbSettings *s, MbsPerturbResult *r)
{
  MbsController c;

  PetscFunctionBeginUser;
  PetscCall(Load(source, name, n, params, &c));
  PetscCall(MbsControllerInit(c, 0, 0, NULL));
  PetscCall(MbsControllerPerturb(c, s, 0, 0, r));
  PetscCall(MbsControllerDestroy(&c));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckT1(MbsTest *test, const Source *source)
{
  const char      *names[3]   = {"integrator1", "integrator2", "integrator3"};
  const PetscReal  exact[3]   = {1.0 / 200, 1.0 / 6000, 1.0 / 240000}; /* (y0 + dy/2) dt, (y0/2 + dy/6) dt^2, (y0/6 + dy/24) dt^3 */
  MbsPerturbMethod methods[3] = {MBS_PERTURB_INTEGRAL, MBS_PERTURB_DOUBLE_INTEGRAL, MBS_PERTURB_TRIPLE_INTEGRAL};
  PetscReal        one = 1, seven = 7;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 3; i++) {
    MbsPerturbSettings s = {methods[i], 0.1, 0.1, 1, 1, PETSC_FALSE};
    MbsPerturbResult   r;
    char               what[80];

    PetscCall(EstimateAtRest(source, names[i], 1, &one, &s, &r));
    PetscCall(PetscSNPrintf(what, sizeof(what), "T1 %s: du (black box, K = 1)", names[i]));
    PetscCall(MbsTestClose(test, what, r.du, exact[i], 1e-12, 0));
    PetscCall(PetscSNPrintf(what, sizeof(what), "T1 %s: increment (formula)", names[i]));
    PetscCall(MbsTestClose(test, what, r.increment[0], exact[i], 1e-12, 0));
    PetscCall(EstimateAtRest(source, names[i], 1, &seven, &s, &r));
    PetscCall(PetscSNPrintf(what, sizeof(what), "T1 %s: estimate of K = 7", names[i]));
    PetscCall(MbsTestClose(test, what, r.gain[0], 7, 1e-12, 0));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckT2(MbsTest *test, const Source *source)
{
  MbsPerturbSettings dd = {MBS_PERTURB_DOUBLE_DERIVATIVE, 0.1, 0.1, 1, 1, PETSC_FALSE}, d = {MBS_PERTURB_DERIVATIVE, 0.1, 0.1, 1, 1, PETSC_FALSE};
  MbsPerturbResult   r;
  PetscReal          one = 1, three = 3;

  PetscFunctionBeginUser;
  /* inputs 0, +0.1, -0.1 at 0.1, 0.2, 0.3 s: dy_1 = -0.1, dydot = (-0.1 - 0.1)/0.1 = -2, ydd = (-0.1 - 0.2 + 0)/0.01 = -30 */
  PetscCall(EstimateAtRest(source, "derivative1", 1, &one, &dd, &r));
  PetscCall(MbsTestClose(test, "T2 dy_1 = dy_j2", r.increment[1], -0.1, 1e-12, 0));
  PetscCall(MbsTestClose(test, "T2 dydot_1 (black box, n = 1 chain)", r.du, -2, 1e-12, 0));
  PetscCall(MbsTestClose(test, "T2 dydot_1 (41)", r.increment[2], -2, 1e-12, 0));
  PetscCall(EstimateAtRest(source, "derivative2", 1, &one, &dd, &r));
  PetscCall(MbsTestClose(test, "T2 yddot_1 (black box, n = 2 chain)", r.du, -30, 1e-12, 0));
  PetscCall(MbsTestClose(test, "T2 yddot_1 (43)", r.increment[0], -30, 1e-12, 0));
  PetscCall(EstimateAtRest(source, "derivative1", 1, &three, &d, &r));
  PetscCall(MbsTestClose(test, "T2 estimate (36) of K = 3", r.gain[0], 3, 1e-12, 0));
  PetscCall(EstimateAtRest(source, "derivative2", 1, &three, &dd, &r));
  PetscCall(MbsTestClose(test, "T2 estimate (44) of K = 3", r.gain[0], 3, 1e-12, 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckEq52(MbsTest *test, const Source *source)
{
  const PetscReal gains[3] = {1, 1, 1};

  PetscFunctionBeginUser;
  for (PetscInt protocol = 0; protocol < 2; protocol++) {
    MbsPerturbSettings s = {MBS_PERTURB_PID, 0.1, 0.1, 1, 1, (PetscBool)protocol};
    MbsPerturbResult   r;
    char               what[96];

    PetscCall(EstimateAtRest(source, "pid", 3, gains, &s, &r));
    for (PetscInt j = 1; j <= 3; j++) {
      const PetscReal row[3] = {0.1 * j, 0.1 * j * 0.1 * j / 2, 1};

      for (PetscInt k = 0; k < 3; k++) {
        PetscCall(PetscSNPrintf(what, sizeof(what), "T-Eq52 (%s) matrix (%" PetscInt_FMT ",%" PetscInt_FMT ")", protocol ? "separate" : "one flat step", j, k + 1));
        PetscCall(MbsTestClose(test, what, r.matrix[3 * (j - 1) + k], row[k], 1e-12, 0));
      }
      PetscCall(PetscSNPrintf(what, sizeof(what), "T-Eq52 (%s) rhs %" PetscInt_FMT, protocol ? "separate" : "one flat step", j));
      PetscCall(MbsTestClose(test, what, r.rhs[j - 1], row[0] + row[1] + row[2], 1e-12, 0));
    }
    for (PetscInt k = 0; k < 3; k++) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "T-Eq52 (%s) gain %" PetscInt_FMT, protocol ? "separate" : "one flat step", k + 1));
      PetscCall(MbsTestClose(test, what, r.gain[k], 1, 0, 1e-10));
    }
  }
  PetscFunctionReturn(0);
}

/* Runs the controller on r(t) = A sin(2 pi t) sampled every dt on [0, 1] s, with the PID estimator at every tenth of a second when perturb */
static PetscErrorCode RunSine(const Source *source, const char name[], PetscInt n, const PetscReal params[], PetscReal amplitude, PetscInt substeps, PetscBool perturb, MbsPerturbResult estimates[11], PetscReal u[101])
{
  MbsController      c;
  MbsPerturbSettings s  = {MBS_PERTURB_PID, 1e-3, 1e-3, 1, substeps, PETSC_FALSE};
  const PetscReal    dt = 0.01;

  PetscFunctionBeginUser;
  PetscCall(Load(source, name, n, params, &c));
  for (PetscInt k = 0; k <= 100; k++) {
    PetscReal t = k * dt, r = amplitude * PetscSinReal(2 * PETSC_PI * t);

    if (k == 0) PetscCall(MbsControllerInit(c, 0, r, &u[0]));
    else PetscCall(MbsControllerStep(c, t, r, dt, &u[k]));
    if (perturb && k % 10 == 0) PetscCall(MbsControllerPerturb(c, &s, t, r, &estimates[k / 10]));
  }
  PetscCall(MbsControllerDestroy(&c));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckT3(MbsTest *test, const Source *source, PetscReal estimated_pid[3])
{
  const char *combos[8] = {"PID", "PI", "PD", "ID", "P", "I", "D", "none"};

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 8; i++) {
    PetscReal        gains[3] = {strchr(combos[i], 'P') ? 100 : 0, strchr(combos[i], 'I') ? 20 : 0, strchr(combos[i], 'D') ? 6 : 0};
    MbsPerturbResult r1[11], r4[11];
    PetscReal        u[101];
    char             what[64];

    PetscCall(RunSine(source, "pid", 3, gains, 0, 1, PETSC_TRUE, r1, u));
    PetscCall(RunSine(source, "pid", 3, gains, 0, 4, PETSC_TRUE, r4, u));
    for (PetscInt k = 0; k < 3; k++) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "T3 %s: %s", combos[i], k == 0 ? "K_p" : k == 1 ? "K_i" : "K_d"));
      PetscCall(MbsTestClose(test, what, r1[0].gain[k], gains[k], 0, 1e-6));
      PetscCall(PetscSNPrintf(what, sizeof(what), "T3 %s: %s, n = 4 vs n = 1", combos[i], k == 0 ? "K_p" : k == 1 ? "K_i" : "K_d"));
      PetscCall(MbsTestClose(test, what, r4[0].gain[k], r1[0].gain[k], 0, k == 2 ? 1e-9 : 1e-5));
    }
    if (i == 0) PetscCall(PetscArraycpy(estimated_pid, r1[0].gain, 3));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckT4T5(MbsTest *test, const Source *source)
{
  const PetscReal  gains[4] = {100, 20, 6, 0.7};
  MbsPerturbResult r1[11], r4[11], unused[11];
  PetscReal        u[101], u_plain[101], integral = 0;
  PetscBool        same;
  char             what[80];

  PetscFunctionBeginUser;
  PetscCall(RunSine(source, "pid", 3, gains, 1, 1, PETSC_TRUE, r1, u));
  PetscCall(RunSine(source, "pid", 3, gains, 1, 4, PETSC_TRUE, r4, u));
  PetscCall(RunSine(source, "pid", 3, gains, 1, 1, PETSC_FALSE, unused, u_plain));
  for (PetscInt i = 0; i <= 10; i++)
    for (PetscInt k = 0; k < 3; k++) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "T4 t0 = %.1f s: %s", (double)(0.1 * i), k == 0 ? "K_p" : k == 1 ? "K_i" : "K_d"));
      PetscCall(MbsTestClose(test, what, r1[i].gain[k], gains[k], 0, k == 2 ? 1e-10 : 1e-6));
      PetscCall(PetscSNPrintf(what, sizeof(what), "T4 t0 = %.1f s: %s, n = 4 vs n = 1", (double)(0.1 * i), k == 0 ? "K_p" : k == 1 ? "K_i" : "K_d"));
      PetscCall(MbsTestClose(test, what, r4[i].gain[k], r1[i].gain[k], 0, k == 2 ? 1e-9 : 1e-5));
    }
  /* K_i to the rounding of the outputs: an ulp of |u| <= K_p (1 + dy) + K_i max|int r| + K_d dy/dt = 110 is 2.4e-14, and
     K_i's smallest column entry (y0 + dy/2) dt = 5e-7: 5e-8, the level of the paper's Table 4 (2.5e-8) at every t0 */
  for (PetscInt i = 0; i <= 10; i++) {
    PetscCall(PetscSNPrintf(what, sizeof(what), "T4 t0 = %.1f s: K_i to rounding", (double)(0.1 * i)));
    PetscCall(MbsTestClose(test, what, r1[i].gain[1], gains[1], 0, 110 * PETSC_MACHINE_EPSILON / 5e-7));
  }
  PetscCall(PetscArraycmp(u, u_plain, 101, &same));
  PetscCall(MbsTestTrue(test, "T4 the outputs with perturbations equal those without, bit for bit", same));
  /* the PID law on the sampled sine: trapezoidal integral, backward difference */
  for (PetscInt k = 1; k <= 100; k++) {
    PetscReal r = PetscSinReal(2 * PETSC_PI * k * 0.01), r_prev = PetscSinReal(2 * PETSC_PI * (k - 1) * 0.01), law;

    integral += 0.01 * (r_prev + r) / 2;
    law = 100 * r + 20 * integral + 6 * (r - r_prev) / 0.01;
    if (k == 25 || k == 50 || k == 100) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "T4 unperturbed u(%.2f s)", (double)(0.01 * k)));
      PetscCall(MbsTestClose(test, what, u[k], law, 1e-12, 0));
    }
  }

  PetscCall(RunSine(source, "pid_switch", 4, gains, 1, 1, PETSC_TRUE, r1, u));
  for (PetscInt i = 0; i <= 10; i++) {
    PetscBool collapsed = (PetscBool)(r1[i].gain[0] == 0 && r1[i].gain[1] == 0 && r1[i].gain[2] == 0), expected = (PetscBool)(i == 2 || i == 3 || i == 7 || i == 8);

    PetscCall(PetscSNPrintf(what, sizeof(what), "T5 t0 = %.1f s: all three estimates zero is %s", (double)(0.1 * i), expected ? "expected" : "not expected"));
    PetscCall(MbsTestTrue(test, what, (PetscBool)(collapsed == expected)));
    for (PetscInt k = 0; k < 3; k++) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "T5 t0 = %.1f s: %s", (double)(0.1 * i), k == 0 ? "K_p" : k == 1 ? "K_i" : "K_d"));
      PetscCall(MbsTestClose(test, what, r1[i].gain[k], expected ? 0 : gains[k], 0, 1e-6));
    }
  }
  PetscFunctionReturn(0);
}

/* The roots of m l^3 + a l^2 + b l + c (one real root, a complex pair): Cardano, each root polished by Newton */
static void CubicRoots(PetscReal m, PetscReal a, PetscReal b, PetscReal c, PetscReal re[3], PetscReal im[3])
{
  PetscReal A = a / m, B = b / m, C = c / m, p = B - A * A / 3, q = 2 * A * A * A / 27 - A * B / 3 + C, disc = q * q / 4 + p * p * p / 27, r, e, f;

  r = cbrt(-q / 2 + PetscSqrtReal(disc)) + cbrt(-q / 2 - PetscSqrtReal(disc)) - A / 3;
  for (PetscInt k = 0; k < 3; k++) r -= (((r + A) * r + B) * r + C) / ((3 * r + 2 * A) * r + B);
  e     = A + r; /* l^3 + A l^2 + B l + C = (l - r)(l^2 + e l + f) */
  f     = -C / r;
  re[0] = r;
  im[0] = 0;
  re[1] = re[2] = -e / 2;
  im[1]         = PetscSqrtReal(f - e * e / 4);
  im[2]         = -im[1];
}

static void QuadraticRoots(PetscReal m, PetscReal c, PetscReal k, PetscReal re[2], PetscReal im[2])
{
  re[0] = re[1] = -c / (2 * m);
  im[0]         = PetscSqrtReal(k / m - re[0] * re[0]);
  im[1]         = -im[0];
}

/* Each expected root against the nearest eigenvalue of the result, relative to its modulus */
static PetscErrorCode MatchRoots(MbsTest *test, const char what[], PetscInt n, const PetscReal re[], const PetscReal im[], PetscInt nfound, const PetscReal found[], PetscReal rtol)
{
  char text[96];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(text, sizeof(text), "%s: %" PetscInt_FMT " finite eigenvalues", what, n));
  PetscCall(MbsTestTrue(test, text, (PetscBool)(nfound == n)));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal best = PETSC_MAX_REAL;

    for (PetscInt j = 0; j < nfound; j++) best = PetscMin(best, PetscSqrtReal(PetscSqr(found[2 * j] - re[i]) + PetscSqr(found[2 * j + 1] - im[i])));
    PetscCall(PetscSNPrintf(text, sizeof(text), "%s: root %.6g%+.6gi, distance / |root|", what, (double)re[i], (double)im[i]));
    PetscCall(MbsTestClose(test, text, best / PetscSqrtReal(re[i] * re[i] + im[i] * im[i]), 0, 0, rtol));
  }
  PetscFunctionReturn(0);
}

/* Every eigenvalue of [0 I; -K -C] v = l [I 0; 0 M] v by SLEPc's dense EPSLAPACK (LAPACK's generalised solver); the
   infinite ones (beta = 0) are left out */
static PetscErrorCode DenseEigenvalues(PetscInt nq, const PetscReal M[], const PetscReal C[], const PetscReal K[], PetscInt *nfinite, PetscReal lambda[])
{
  Mat      A, B;
  EPS      eps;
  PetscInt n = 2 * nq, nconv;

  PetscFunctionBeginUser;
  PetscCall(MbsTestCompanionPencil(nq, M, C, K, &A, &B));
  PetscCall(EPSCreate(PETSC_COMM_SELF, &eps));
  PetscCall(EPSSetOperators(eps, A, B));
  PetscCall(EPSSetProblemType(eps, EPS_GNHEP));
  PetscCall(EPSSetType(eps, EPSLAPACK));
  PetscCall(EPSSetDimensions(eps, n, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(EPSSolve(eps));
  PetscCall(EPSGetConverged(eps, &nconv));
  *nfinite = 0;
  for (PetscInt i = 0; i < nconv; i++) {
    PetscScalar kr, ki;

    PetscCall(EPSGetEigenvalue(eps, i, &kr, &ki));
    if (!(PetscAbsScalar(kr) < 1e12 && PetscAbsScalar(ki) < 1e12)) continue;
    lambda[2 * *nfinite]     = PetscRealPart(kr);
    lambda[2 * *nfinite + 1] = PetscRealPart(ki);
    (*nfinite)++;
  }
  PetscCall(EPSDestroy(&eps));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckClosedLoop(MbsTest *test, const PetscReal gains[3], const char label[], PetscReal rtol_true, PetscReal rtol_own)
{
  const PetscReal truth[3] = {100, 20, 6}, m = 1, c = 1, k = 100;
  MbsModel        model;
  PetscReal       re[3], im[3], dense[8];
  PetscInt        ndense = 0;
  char            what[96];

  PetscFunctionBeginUser;
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetType(model, "pid_sdof"));
  for (PetscInt integral = 0; integral < 3; integral++) { /* 0: open loop, 1: Eq. (9), 2: with the integral coordinate */
    MbsEigenResult  result;
    PetscInt        nq;
    PetscReal      *M, *C, *K;
    const char     *kind    = integral == 0 ? "open loop" : integral == 1 ? "closed loop, Eq. (9)" : "closed loop, integral coordinate";
    const PetscReal zero[3] = {0, 0, 0};
    const PetscInt  input   = 0;

    PetscCall(MbsModelLinearizeClosedLoop(model, 1, &input, integral ? gains : zero, (PetscBool)(integral == 2), &nq, &M, &C, &K));
    if (integral == 2) {
      const PetscReal Ms[4] = {m, 0, 0, 0}, Cs[4] = {c + gains[2], 0, 0, 1}, Ks[4] = {k + gains[0], -1, gains[1], 0}; /* column-major */
      PetscBool       same = (PetscBool)(nq == 2);

      for (PetscInt i = 0; same && i < 4; i++) same = (PetscBool)(M[i] == Ms[i] && C[i] == Cs[i] && K[i] == Ks[i]);
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s: M, C, K are the spec's section 6 matrices (%s gains)", kind, label));
      PetscCall(MbsTestTrue(test, what, same));
    }
    PetscCall(MbsEigenComputeOperators(nq, M, C, K, NULL, &result));
    PetscCall(DenseEigenvalues(nq, M, C, K, &ndense, dense));
    for (PetscInt pass = 0; pass < 2; pass++) { /* against the closed form of the estimated or given gains, then of the true gains */
      const PetscReal *g    = pass == 0 ? gains : truth;
      PetscReal        rtol = pass == 0 ? 1e-9 : rtol_true;
      PetscInt         n    = integral == 2 ? 3 : 2;

      if (integral == 0) QuadraticRoots(m, c, k, re, im);
      else if (integral == 1) QuadraticRoots(m, c + g[2], k + g[0], re, im);
      else CubicRoots(m, c + g[2], k + g[0], g[1], re, im);
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s (%s gains) PEP vs %s closed form", kind, label, pass == 0 ? "own" : "true gains'"));
      PetscCall(MatchRoots(test, what, n, re, im, result.nlambda, result.lambda, rtol));
      if (pass == 0) {
        PetscCall(PetscSNPrintf(what, sizeof(what), "%s (%s gains) dense LAPACK vs closed form", kind, label));
        PetscCall(MatchRoots(test, what, n, re, im, ndense, dense, rtol_own));
      }
    }
    PetscCall(MbsEigenResultReset(&result));
    PetscCall(PetscFree3(M, C, K));
  }
  PetscCall(MbsModelDestroy(&model));
  PetscFunctionReturn(0);
}

typedef struct {
  MbsController      controller;
  MbsPerturbSettings settings;
  PetscBool          perturb;
  PetscInt           n;
  PetscReal          u[1001], y[1001];
} Loop;

static PetscErrorCode LoopSample(MbsModel model, PetscInt l, PetscInt n, PetscReal t, PetscReal y, PetscReal *u, void *ctx)
{
  Loop *loop = (Loop *)ctx;

  PetscFunctionBeginUser;
  if (n == 0) PetscCall(MbsControllerInit(loop->controller, t, y, u));
  else PetscCall(MbsControllerStep(loop->controller, t, y, 0.01, u));
  if (loop->perturb && n % 7 == 3) {
    MbsPerturbResult r;

    PetscCall(MbsControllerPerturb(loop->controller, &loop->settings, t, y, &r));
  }
  loop->u[loop->n] = *u;
  loop->y[loop->n] = y;
  loop->n++;
  PetscFunctionReturn(0);
}

/* pid_sdof driven by F = 10 sin(2 pi t) with the PID in the loop; perturbed every seventh sample or not at all */
static PetscErrorCode CheckInTheLoop(MbsTest *test, const Source *source)
{
  const PetscReal gains[3] = {100, 20, 6};
  const PetscInt  input    = 0;
  MbsModel        model;
  Loop           *loop[2];
  PetscBool       same;
  PetscReal       largest = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-pid_sdof_force", "10"));
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetType(model, "pid_sdof"));
  PetscCall(MbsModelSetFromOptions(model));
  for (PetscInt pass = 0; pass < 2; pass++) {
    MbsSignal signal;

    PetscCall(PetscNew(&loop[pass]));
    loop[pass]->settings = (MbsPerturbSettings){MBS_PERTURB_PID, 1e-3, 1e-3, 1, 1, PETSC_FALSE};
    loop[pass]->perturb  = (PetscBool)(pass == 0);
    PetscCall(Load(source, "pid", 3, gains, &loop[pass]->controller));
    PetscCall(MbsSimulateClosedLoop(model, NULL, 0.01, 1, &input, LoopSample, loop[pass], &signal));
    PetscCall(MbsSignalDestroy(&signal));
    PetscCall(MbsControllerDestroy(&loop[pass]->controller));
  }
  same = (PetscBool)(loop[0]->n == loop[1]->n && loop[0]->n == 101);
  if (same) PetscCall(PetscArraycmp(loop[0]->u, loop[1]->u, loop[0]->n, &same));
  if (same) PetscCall(PetscArraycmp(loop[0]->y, loop[1]->y, loop[0]->n, &same));
  for (PetscInt i = 0; i < loop[0]->n; i++) largest = PetscMax(largest, PetscAbsReal(loop[0]->y[i]));
  PetscCall(MbsTestTrue(test, "in the loop: 101 samples, the run with 14 perturbations equals the run without, bit for bit", same));
  PetscCall(MbsTestTrue(test, "in the loop: the plant moves (|y| > 1e-3 m somewhere)", (PetscBool)(largest > 1e-3)));
  PetscCall(PetscFree(loop[0]));
  PetscCall(PetscFree(loop[1]));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(PetscOptionsClearValue(NULL, "-pid_sdof_force"));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsTest   test = {0, 0};
  Source    source;
  PetscReal estimated[3], truth[3] = {100, 20, 6};

  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscMemzero(&source, sizeof(source)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-controller_library", source.library, sizeof(source.library), NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Test controllers: %s\n", source.library[0] ? source.library : "built-in"));
  PetscCall(CheckT1(&test, &source));
  PetscCall(CheckT2(&test, &source));
  PetscCall(CheckEq52(&test, &source));
  PetscCall(CheckT3(&test, &source, estimated));
  PetscCall(CheckT4T5(&test, &source));
  PetscCall(CheckClosedLoop(&test, truth, "true", 1e-9, 1e-9));
  PetscCall(CheckClosedLoop(&test, estimated, "T3-estimated", 1e-7, 1e-9));
  PetscCall(CheckInTheLoop(&test, &source));
  PetscCall(MbsTestFinish(&test));
  PetscCall(SlepcFinalize());
  return 0;
}
