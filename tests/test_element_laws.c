static const char
  help[] = "Checks the bushing, its load sensors, the relative_displacement sensor, the force's sweep and history laws, inertia parameters and the engine-order loads of model files against the laws of powertrain_mounts.md sections 4 and 5.\n";

/*
  1. A bushing with a turned frame C between two rigid bodies A and B (a model file this test writes), at poses with large
  finite rotations and arbitrary velocities. The model's residual rows M v' - f at v' = 0, lambda = 0 give the bushing's
  generalised force Q = f in natural coordinates (r, u, v, w per body). From Q, each body's resultant and moment about
  its centre of mass follow by virtual work (delta u_j = delta theta x u_j):

    F_i = Q_r,   M_i = sum_j a_j x Q_aj        (a_j = u, v, w of body i)

  They must equal those of section 4 computed here from the spec's formulas (rotation matrices and angular velocities,
  not natural coordinates): e = C^T R_A^T (r_B - r_A), e' = C^T R_A^T (r_B' - r_A' - w_A x (r_B - r_A)),
  f = K e + D e', F_B = -R_A C f at r_B, F_A = -F_B at the same point. Further, the pair exerts no net moment about the
  origin, and the power of Q is -(e^T K e' + e'^T D e'), of which the damper's part e'^T D e' >= 0 is dissipated.
  The bushing_force sensors read f_i, and relative_displacement sensors across the pair read n.(r_B - r_A) (frame
  ground) and (R_A n).(r_B - r_A) (frame body; A's axes start as the ground's), both zero at the initial pose. A
  position and a velocity sensor at the bushing's point on B with frame: body read (R_B n).r_B and
  (R_B n).(v_B + w_B x R_B b).

  2. The engine-order loads on a rigid body at a finite rotation R, at constant speed n: an engine_force along the body
  direction d at the body point c and an engine_torque about the body axis m (section 5, with d and m turned off the
  body axes), F = A w^2 cos(2 theta) R d at x + R c and M = T sin(2 theta) R m, theta = 2 pi n t, w = 2 pi n. From the
  residual's Q (as in 1.) the body's resultant must be F and its moment about the centre (R c) x F + M.
*/
#include "mbstest.h"

static void Times(const PetscReal R[9], PetscBool transpose, const PetscReal x[3], PetscReal y[3])
{
  for (PetscInt i = 0; i < 3; i++) y[i] = transpose ? R[i] * x[0] + R[3 + i] * x[1] + R[6 + i] * x[2] : R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
}

static void Cross(const PetscReal a[3], const PetscReal b[3], PetscReal c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Body resultant F and moment M about the centre from the generalised force Q (r, u, v, w) at the axes q + 3.. */
static void Resultant(const PetscReal Q[], const PetscReal q[], PetscReal F[3], PetscReal M[3])
{
  for (PetscInt k = 0; k < 3; k++) {
    F[k] = Q[k];
    M[k] = 0;
  }
  for (PetscInt j = 0; j < 3; j++) {
    PetscReal m[3];

    Cross(q + 3 + 3 * j, Q + 3 + 3 * j, m);
    for (PetscInt k = 0; k < 3; k++) M[k] += m[k];
  }
}

static PetscErrorCode LoadModel(const char path[], MbsModel *model, PetscInt *n)
{
  PetscInt nq, np;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-model_file", path));
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, model));
  PetscCall(MbsModelSetFromOptions(*model));
  PetscCall(MbsModelGetSizes(*model, n, &nq, &np));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckEngineLoads(MbsTest *test)
{
  const PetscReal phi[3] = {0.5, -0.4, 0.7}, x[3] = {0.01, -0.02, 0.03}, c[3] = {0.02, -0.01, 0.05}, d[3] = {0.0, 0.6, 0.8}, rpm = 1234, A = 0.019952, T = 90, t = 0.0123;
  const char      path[] = "test_engine_loads_model.yaml";
  PetscReal       R[9], m[3], theta = 2 * PETSC_PI * rpm / 60 * t, w = 2 * PETSC_PI * rpm / 60, size, *U, *Udot, *F, Q[12], got_F[3], got_M[3], want_F[3], want_M[3], Rc[3], t1[3];
  PetscInt        n;
  MbsModel        model;
  FILE           *file;

  PetscFunctionBeginUser;
  size = PetscSqrtReal(1 + 0.04 + 0.01);
  m[0] = 1 / size;
  m[1] = 0.2 / size;
  m[2] = 0.1 / size;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "w", &file));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "speed: {stationary_rpm: %g}\nbodies:\n  P: {mass: 180, inertia: [8.0, 14.0, 12.0, 0.4, 0.3, -1.2]}\nelements:\n", (double)rpm));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "  force: {type: engine_force, body: P, point: [%g, %g, %g], direction: [%g, %g, %g], orders: [2], amplitudes: [%g], powers: [2]}\n", (double)c[0], (double)c[1], (double)c[2], (double)d[0], (double)d[1], (double)d[2], (double)A));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "  torque: {type: engine_torque, body: P, axis: [1, 0.2, 0.1], orders: [2], amplitudes: [%g], functions: [sin]}\n  x: {type: position, body: P, axis: [1, 0, 0]}\n", (double)T));
  PetscCall(PetscFClose(PETSC_COMM_SELF, file));
  PetscCall(LoadModel(path, &model, &n));
  PetscCall(PetscCalloc3(n, &U, n, &Udot, n, &F));
  MbsTestRotation(phi, R);
  for (PetscInt k = 0; k < 3; k++) U[k] = x[k];
  for (PetscInt j = 0; j < 3; j++)
    for (PetscInt k = 0; k < 3; k++) U[3 + 3 * j + k] = R[3 * k + j];
  PetscCall(MbsModelResidual(model, t, U, Udot, F)); /* rows 12..23: -Q */
  for (PetscInt i = 0; i < 12; i++) Q[i] = -F[12 + i];
  Resultant(Q, U, got_F, got_M);
  Times(R, PETSC_FALSE, d, want_F);
  Times(R, PETSC_FALSE, c, Rc);
  for (PetscInt k = 0; k < 3; k++) want_F[k] *= A * w * w * PetscCosReal(2 * theta);
  Cross(Rc, want_F, want_M);
  Times(R, PETSC_FALSE, m, t1);
  for (PetscInt k = 0; k < 3; k++) want_M[k] += T * PetscSinReal(2 * theta) * t1[k];
  for (PetscInt k = 0; k < 3; k++) {
    PetscCall(MbsTestClose(test, "engine-order force, component", got_F[k], want_F[k], 0, 1e-12 * A * w * w));
    PetscCall(MbsTestClose(test, "engine-order moment about the centre, component", got_M[k], want_M[k], 0, 1e-12 * T));
  }
  PetscCall(PetscFree3(U, Udot, F));
  PetscCall(MbsModelDestroy(&model));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckBushing(MbsTest *test)
{
  /* the bushing: point p at rest (A's and B's centres at xA0, xB0, axes parallel to ground), frame C = R(c_phi) */
  const PetscReal xA0[3] = {0.1, -0.2, 0.3}, xB0[3] = {0.5, 0.1, 0.2}, p[3] = {0.3, 0.25, -0.1}, c_phi[3] = {0.4, -0.3, 0.8}, K[3] = {2e5, 1.5e5, 3e5}, D[3] = {300, 220, 450};
  /* the state: finite rotations, displacements of the order of the bushing's size, velocities */
  const PetscReal phiA[3] = {0.3, -0.5, 0.2}, phiB[3] = {-0.4, 0.35, 0.6}, dxA[3] = {0.01, -0.02, 0.015}, dxB[3] = {-0.012, 0.008, 0.02};
  const PetscReal vA[3] = {0.3, -0.1, 0.2}, vB[3] = {-0.2, 0.4, 0.1}, wA[3] = {1.5, -0.7, 2.0}, wB[3] = {-1.1, 2.3, 0.4};
  /* the axis of the relative_displacement sensors (a unit vector), fixed in the ground or turning with A */
  const PetscReal n_gap[3] = {0.48, -0.6, 0.64};
  const char      path[]   = "test_bushing_model.yaml";
  PetscReal       C[9], RA[9], RB[9], xA[3], xB[3], a[3], b[3], rA[3], rB[3], d[3], dd[3], e[3], edot[3], f[3], g[3], FB[3], MA[3], MB[3], t1[3], t2[3];
  PetscReal      *U, *Udot, *F, power = 0, scaleF = 0, scaleM = 0;
  PetscInt        n;
  MbsModel        model;
  FILE           *file;

  PetscFunctionBeginUser;
  MbsTestRotation(c_phi, C);
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "w", &file));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "bodies:\n  A: {mass: 2, inertia: [0.03, 0.04, 0.05, 0.002, -0.001, 0.003], position: [%.17g, %.17g, %.17g]}\n", (double)xA0[0], (double)xA0[1], (double)xA0[2]));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "  B: {mass: 3, inertia: [0.05, 0.06, 0.07], position: [%.17g, %.17g, %.17g]}\nelements:\n", (double)xB0[0], (double)xB0[1], (double)xB0[2]));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "  mount: {type: bushing, bodies: [A, B], point: [%.17g, %.17g, %.17g], stiffness: [%g, %g, %g], damping: [%g, %g, %g],\n", (double)p[0], (double)p[1], (double)p[2], (double)K[0], (double)K[1], (double)K[2], (double)D[0], (double)D[1], (double)D[2]));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "    axes: [[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]]}\n", (double)C[0], (double)C[3], (double)C[6], (double)C[1], (double)C[4], (double)C[7], (double)C[2], (double)C[5], (double)C[8]));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "  x: {type: position, body: B, axis: [1, 0, 0]}\n"));
  for (PetscInt k = 0; k < 3; k++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "  f%c: {type: bushing_force, bushing: mount, component: %c}\n", 'x' + (int)k, 'x' + (int)k));
  for (PetscInt frame = 0; frame < 2; frame++)
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "  gap_%s: {type: relative_displacement, bodies: [A, B], point: [%.17g, %.17g, %.17g], axis: [%.17g, %.17g, %.17g], frame: %s}\n", frame ? "body" : "ground", (double)p[0], (double)p[1], (double)p[2], (double)n_gap[0], (double)n_gap[1], (double)n_gap[2], frame ? "body" : "ground"));
  for (PetscInt kind = 0; kind < 2; kind++)
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "  %s_body: {type: %s, body: B, point: [%.17g, %.17g, %.17g], axis: [%.17g, %.17g, %.17g], frame: body}\n", kind ? "velocity" : "position", kind ? "velocity" : "position", (double)p[0], (double)p[1], (double)p[2], (double)n_gap[0], (double)n_gap[1], (double)n_gap[2]));
  PetscCall(PetscFClose(PETSC_COMM_SELF, file));
  PetscCall(LoadModel(path, &model, &n));
  PetscCall(PetscCalloc3(n, &U, n, &Udot, n, &F));

  /* natural coordinates of the pose (body A: 0..11, B: 12..23) and their rates u_j' = w x u_j */
  MbsTestRotation(phiA, RA);
  MbsTestRotation(phiB, RB);
  for (PetscInt k = 0; k < 3; k++) {
    xA[k] = xA0[k] + dxA[k];
    xB[k] = xB0[k] + dxB[k];
    a[k]  = p[k] - xA0[k];
    b[k]  = p[k] - xB0[k];
  }
  for (PetscInt body = 0; body < 2; body++) {
    const PetscReal *x = body ? xB : xA, *R = body ? RB : RA, *v = body ? vB : vA, *w = body ? wB : wA;
    PetscReal       *q = U + 12 * body, *qdot = U + 24 + 12 * body;

    for (PetscInt k = 0; k < 3; k++) {
      q[k]    = x[k];
      qdot[k] = v[k];
    }
    for (PetscInt j = 0; j < 3; j++) {
      PetscReal axis[3] = {R[j], R[3 + j], R[6 + j]};

      for (PetscInt k = 0; k < 3; k++) q[3 + 3 * j + k] = axis[k];
      Cross(w, axis, qdot + 3 + 3 * j);
    }
  }
  PetscCall(MbsModelResidual(model, 0, U, Udot, F)); /* rows 24..47: -Q */

  /* section 4 */
  Times(RA, PETSC_FALSE, a, t1);
  Times(RB, PETSC_FALSE, b, t2);
  for (PetscInt k = 0; k < 3; k++) {
    rA[k] = xA[k] + t1[k];
    rB[k] = xB[k] + t2[k];
    d[k]  = rB[k] - rA[k];
  }
  {
    PetscReal wa[3], wb[3], wd[3];

    Cross(wA, t1, wa);
    Cross(wB, t2, wb);
    Cross(wA, d, wd);
    for (PetscInt k = 0; k < 3; k++) dd[k] = (vB[k] + wb[k]) - (vA[k] + wa[k]) - wd[k];
  }
  Times(RA, PETSC_TRUE, d, t1);
  Times(C, PETSC_TRUE, t1, e);
  Times(RA, PETSC_TRUE, dd, t1);
  Times(C, PETSC_TRUE, t1, edot);
  for (PetscInt k = 0; k < 3; k++) f[k] = K[k] * e[k] + D[k] * edot[k];
  Times(C, PETSC_FALSE, f, t1);
  Times(RA, PETSC_FALSE, t1, FB);
  for (PetscInt k = 0; k < 3; k++) {
    FB[k] = -FB[k];
    t1[k] = rB[k] - xB[k];
    t2[k] = rB[k] - xA[k];
    g[k]  = -FB[k]; /* F_A */
  }
  /* bushing_force channels 1..3: f = K e + D e' of section 4 */
  for (PetscInt k = 0; k < 3; k++) {
    PetscReal y, scale = PetscAbsReal(f[0]) + PetscAbsReal(f[1]) + PetscAbsReal(f[2]);

    PetscCall(MbsModelChannelOutput(model, 1 + k, 0, U, &y, NULL));
    PetscCall(MbsTestClose(test, "bushing_force = (K e + D e')_i", y, f[k], 0, 1e-12 * scale));
  }
  /* relative_displacement channels 4, 5: n.(r_B - r_A) and (R_A n).(r_B - r_A), zero at the initial pose (one point) */
  {
    PetscReal y[2], want[2] = {0, 0}, turned[3];

    Times(RA, PETSC_FALSE, n_gap, turned);
    for (PetscInt k = 0; k < 3; k++) {
      want[0] += n_gap[k] * d[k];
      want[1] += turned[k] * d[k];
    }
    for (PetscInt frame = 0; frame < 2; frame++) {
      PetscCall(MbsModelChannelOutput(model, 4 + frame, 0, U, &y[frame], NULL));
      PetscCall(MbsTestClose(test, frame ? "relative_displacement, frame body = (R_A n).(r_B - r_A)" : "relative_displacement, frame ground = n.(r_B - r_A)", y[frame], want[frame], 0, 1e-14));
    }
  }
  /* position and velocity channels 6, 7, frame body: B's point r_B and its velocity v_B + w_B x (R_B b) along R_B n */
  {
    PetscReal y[2], want[2] = {0, 0}, turned[3], arm[3], spin[3];

    Times(RB, PETSC_FALSE, n_gap, turned);
    Times(RB, PETSC_FALSE, b, arm);
    Cross(wB, arm, spin);
    for (PetscInt k = 0; k < 3; k++) {
      want[0] += turned[k] * rB[k];
      want[1] += turned[k] * (vB[k] + spin[k]);
    }
    for (PetscInt kind = 0; kind < 2; kind++) {
      PetscCall(MbsModelChannelOutput(model, 6 + kind, 0, U, &y[kind], NULL));
      PetscCall(MbsTestClose(test, kind ? "velocity, frame body = (R_B n).(v_B + w_B x R_B b)" : "position, frame body = (R_B n).r_B", y[kind], want[kind], 0, 1e-14));
    }
  }
  Cross(t1, FB, MB);
  Cross(t2, g, MA);
  for (PetscInt k = 0; k < 3; k++) {
    scaleF = PetscMax(scaleF, PetscAbsReal(FB[k]));
    scaleM = PetscMax(scaleM, PetscMax(PetscAbsReal(MA[k]), PetscAbsReal(MB[k])));
  }
  {
    PetscReal force[2][3],
      moment[2][3] =
        {
          {0, 0, 0},
          {0, 0, 0}
    },
      net[3];
    char what[64];

    for (PetscInt body = 0; body < 2; body++) {
      PetscReal Q[12];

      for (PetscInt i = 0; i < 12; i++) Q[i] = -F[24 + 12 * body + i];
      Resultant(Q, U + 12 * body, force[body], moment[body]);
      for (PetscInt k = 0; k < 3; k++) {
        PetscCall(PetscSNPrintf(what, sizeof(what), "force on %c, component %" PetscInt_FMT, body ? 'B' : 'A', k + 1));
        PetscCall(MbsTestClose(test, what, force[body][k], body ? FB[k] : g[k], 0, 1e-11 * scaleF));
        PetscCall(PetscSNPrintf(what, sizeof(what), "moment on %c about its CoG, component %" PetscInt_FMT, body ? 'B' : 'A', k + 1));
        PetscCall(MbsTestClose(test, what, moment[body][k], body ? MB[k] : MA[k], 0, 1e-11 * scaleM));
      }
    }
    /* no net moment about the origin: x_A x F_A + M_A + x_B x F_B + M_B = 0 */
    Cross(xA, force[0], t1);
    Cross(xB, force[1], t2);
    for (PetscInt k = 0; k < 3; k++) net[k] = t1[k] + moment[0][k] + t2[k] + moment[1][k];
    for (PetscInt k = 0; k < 3; k++) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "net moment of the pair, component %" PetscInt_FMT, k + 1));
      PetscCall(MbsTestClose(test, what, net[k], 0, 0, 1e-11 * scaleM));
    }
  }
  /* power of Q along q' = v: -(e^T K e' + e'^T D e'), the damper's part dissipated */
  for (PetscInt i = 0; i < 24; i++) power -= F[24 + i] * U[24 + i];
  {
    PetscReal elastic = 0, dissipated = 0;

    for (PetscInt k = 0; k < 3; k++) {
      elastic += K[k] * e[k] * edot[k];
      dissipated += D[k] * edot[k] * edot[k];
    }
    PetscCall(MbsTestClose(test, "power of Q = -(e^T K e' + e'^T D e')", power, -(elastic + dissipated), 1e-10, 0));
    PetscCall(MbsTestTrue(test, "the damper dissipates: e'^T D e' > 0", (PetscBool)(dissipated > 0)));
  }
  PetscCall(PetscFree3(U, Udot, F));
  PetscCall(MbsModelDestroy(&model));
  PetscFunctionReturn(0);
}

/* The instantaneous frequency of the stated sweep law, f0 + (f1 - f0) s or f0 (f1 / f0)^s at s = tau / T */
static PetscReal SweepFrequency(PetscBool exponential, const PetscReal f[2], PetscReal s)
{
  return exponential ? f[0] * PetscPowReal(f[1] / f[0], s) : f[0] + (f[1] - f[0]) * s;
}

/*
  3. A sweep force's F(t) = A sin(phase(t)) has its zeros where the phase has advanced by pi: between consecutive zeros
  of the model's F (found by bisection), the integral of the stated instantaneous frequency f(t) (5-point Gauss-Legendre
  on each interval) must be exactly 1/2, and the number of zeros in (t0, t1) must be floor(2 int_t0^t1 f).
*/
static PetscErrorCode CheckSweep(MbsTest *test, PetscBool exponential)
{
  const PetscReal f[2] = {1.5, 19.3}, span[2] = {0.2, 2.2}, A = 3, T = span[1] - span[0];
  const PetscReal x[5]     = {-0.9061798459386640, -0.5384693101056831, 0, 0.5384693101056831, 0.9061798459386640};
  const PetscReal w[5]     = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665, 0.2369268850561891};
  const char      path[]   = "test_sweep_model.yaml";
  const PetscInt  nsample  = 20000;
  PetscReal       previous = 0, last_zero = -1, worst = 0, total = 0, F0, F1;
  PetscInt        n, nzero = 0;
  MbsModel        model;
  FILE           *file;
  char            what[96];

  PetscFunctionBeginUser;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "w", &file));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "time: {tf: 3}\nbodies:\n  m: {mass: 1}\nelements:\n  rail: {type: point_on_line, bodies: [ground, m], point: [0, 0, 0], axis: [1, 0, 0]}\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "  drive: {type: force, body: m, direction: [1, 0, 0], sweep: %s, amplitude: %g, frequencies: [%g, %g], sweep_time: [%g, %g]}\n  x: {type: position, body: m, axis: [1, 0, 0]}\n", exponential ? "exponential" : "linear", (double)A, (double)f[0], (double)f[1], (double)span[0], (double)span[1]));
  PetscCall(PetscFClose(PETSC_COMM_SELF, file));
  PetscCall(LoadModel(path, &model, &n));
  PetscCall(MbsModelExcitation(model, span[0] - 1e-3, &F0));
  PetscCall(MbsModelExcitation(model, span[1] + 1e-3, &F1));
  PetscCall(MbsTestTrue(test, "the sweep is zero outside [t0, t1]", (PetscBool)(F0 == 0 && F1 == 0)));
  for (PetscInt i = 1; i <= nsample; i++) { /* zeros strictly inside (t0, t1); t0 itself is one (phase 0) */
    PetscReal lo = span[0] + T * (i - 1) / nsample, hi = span[0] + T * i / nsample, Flo, Fhi, zero;

    PetscCall(MbsModelExcitation(model, hi, &Fhi));
    Flo      = previous;
    previous = Fhi;
    if (i == 1 || Flo * Fhi > 0) continue;
    for (PetscInt k = 0; k < 60; k++) {
      PetscReal mid = (lo + hi) / 2, Fmid;

      PetscCall(MbsModelExcitation(model, mid, &Fmid));
      if (Fmid * Flo > 0) lo = mid, Flo = Fmid;
      else hi = mid;
    }
    zero = (lo + hi) / 2;
    if (last_zero >= 0) {
      PetscReal half = 0;

      for (PetscInt g = 0; g < 5; g++) half += w[g] * (zero - last_zero) / 2 * SweepFrequency(exponential, f, ((last_zero + zero) / 2 + x[g] * (zero - last_zero) / 2 - span[0]) / T);
      worst = PetscMax(worst, PetscAbsReal(half - 0.5));
    }
    last_zero = zero;
    nzero++;
  }
  for (PetscInt g = 0; g < 5; g++) { /* int_t0^t1 f, split in 8 for the exponential's curvature */
    for (PetscInt piece = 0; piece < 8; piece++) total += w[g] * T / 16 * SweepFrequency(exponential, f, (piece + 0.5 + x[g] / 2) / 8);
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s sweep: max |int f dt - 1/2| between zeros", exponential ? "exponential" : "linear"));
  PetscCall(MbsTestClose(test, what, worst, 0, 0, 1e-9));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s sweep: zeros in (t0, t1) = floor(2 int f dt)", exponential ? "exponential" : "linear"));
  PetscCall(MbsTestClose(test, what, nzero, PetscFloorReal(2 * total), 0, 0));
  PetscCall(MbsModelDestroy(&model));
  PetscFunctionReturn(0);
}

/*
  4. A force history (history: FILE, as -input_file reads it) is scale times the piecewise-linear interpolant of its
  nodes: at each node scale F_k, half-way between two nodes scale (F_k + F_k+1) / 2, the last value held after the
  last node. Once with two columns t, F (uneven times), once with one column spread evenly over the file's [t0, tf].
*/
static PetscErrorCode CheckHistory(MbsTest *test, PetscBool one_column)
{
  const PetscReal t[5] = {0, 0.1, 0.25, 0.3, 0.6}, F[5] = {0.5, -2, 3.25, 1, -0.75}, scale = 2.5, tf = 0.6;
  const char      model_path[] = "./test_history_model.yaml", history_path[] = "test_history.txt";
  PetscInt        n;
  MbsModel        model;
  FILE           *file;

  PetscFunctionBeginUser;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, history_path, "w", &file));
  for (PetscInt k = 0; k < 5; k++) {
    if (one_column) PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "%.17g\n", (double)F[k]));
    else PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "%.17g, %.17g\n", (double)t[k], (double)F[k]));
  }
  PetscCall(PetscFClose(PETSC_COMM_SELF, file));
  PetscCall(PetscFOpen(PETSC_COMM_SELF, model_path, "w", &file));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "time: {tf: %g}\nbodies:\n  m: {mass: 1}\nelements:\n  rail: {type: point_on_line, bodies: [ground, m], point: [0, 0, 0], axis: [1, 0, 0]}\n", (double)tf));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "  drive: {type: force, body: m, direction: [1, 0, 0], history: %s, scale: %g}\n  x: {type: position, body: m, axis: [1, 0, 0]}\n", history_path, (double)scale));
  PetscCall(PetscFClose(PETSC_COMM_SELF, file));
  PetscCall(LoadModel(model_path, &model, &n));
  for (PetscInt k = 0; k < 5; k++) {
    PetscReal tk = one_column ? tf * k / 4 : t[k], tn = one_column ? tf * (k + 1) / 4 : t[k + 1], got;

    PetscCall(MbsModelExcitation(model, tk, &got));
    PetscCall(MbsTestClose(test, "history at a node = scale F_k", got, scale * F[k], 1e-14, 0));
    if (k == 4) break;
    PetscCall(MbsModelExcitation(model, (tk + tn) / 2, &got));
    PetscCall(MbsTestClose(test, "history half-way = scale (F_k + F_k+1) / 2", got, scale * (F[k] + F[k + 1]) / 2, 1e-14, 1e-14));
  }
  {
    PetscReal got;

    PetscCall(MbsModelExcitation(model, tf + 0.1, &got));
    PetscCall(MbsTestClose(test, "history after its last node: the last value", got, scale * F[4], 1e-14, 0));
  }
  PetscCall(MbsModelDestroy(&model));
  PetscFunctionReturn(0);
}

/*
  5. Inertia as parameters: with the tensor's entries set to values other than the file's (MbsModelSetParameters), the
  residual rows M v' at v' = the velocities of a rigid body at a finite rotation R (r', u_j' = w x u_j), no forces and
  lambda = 0, are the generalised momenta M q'. Their resultant is the linear momentum m r', and sum_j u_j x (M q')_u_j
  the angular momentum about the centre, R I R^T w with I the tensor [[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz], [Ixz, Iyz, Izz]].
*/
static PetscErrorCode CheckInertia(MbsTest *test)
{
  const PetscReal phi[3] = {0.7, -0.2, 0.4}, vel[3] = {0.3, -0.8, 0.5}, w[3] = {1.3, -2.1, 0.6}, m = 1.7;
  const PetscReal moment[6] = {0.052, 0.047, 0.061, 0.003, -0.002, 0.0035}; /* Ixx, Iyy, Izz, Ixy, Iyz, Ixz: parameters, not the file's */
  const char      path[]    = "test_inertia_model.yaml";
  PetscReal       R[9], tensor[9], t1[3], t2[3], want_L[3], got_P[3], got_L[3], *U, *Udot, *F;
  PetscInt        n;
  MbsModel        model;
  FILE           *file;

  PetscFunctionBeginUser;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "w", &file));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "parameters:\n  Ixx: {value: 0.05, unit: kg m^2, lower: 0.045, upper: 0.065}\n  Iyy: {value: 0.05, unit: kg m^2, lower: 0.045, upper: 0.065}\n  Izz: {value: 0.05, unit: kg m^2, lower: 0.045, upper: 0.065}\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "  Ixy: {value: 0, unit: kg m^2, lower: -0.004, upper: 0.004}\n  Iyz: {value: 0, unit: kg m^2, lower: -0.004, upper: 0.004}\n  Ixz: {value: 0, unit: kg m^2, lower: -0.004, upper: 0.004}\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "bodies:\n  P: {mass: %g, inertia: [{param: Ixx}, {param: Iyy}, {param: Izz}, {param: Ixy}, {param: Iyz}, {param: Ixz}]}\n", (double)m));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "elements:\n  x: {type: position, body: P, axis: [1, 0, 0]}\n"));
  PetscCall(PetscFClose(PETSC_COMM_SELF, file));
  PetscCall(LoadModel(path, &model, &n));
  {
    const char *name[6] = {"Ixx", "Iyy", "Izz", "Ixy", "Iyz", "Ixz"};

    for (PetscInt k = 0; k < 6; k++) {
      PetscInt index;

      PetscCall(MbsModelGetParameterIndex(model, name[k], &index));
      PetscCall(MbsModelSetParameter(model, index, moment[k]));
    }
  }
  PetscCall(PetscCalloc3(n, &U, n, &Udot, n, &F));
  MbsTestRotation(phi, R);
  for (PetscInt k = 0; k < 3; k++) Udot[12 + k] = vel[k];
  for (PetscInt j = 0; j < 3; j++) {
    PetscReal axis[3] = {R[j], R[3 + j], R[6 + j]};

    for (PetscInt k = 0; k < 3; k++) U[3 + 3 * j + k] = axis[k];
    Cross(w, axis, Udot + 12 + 3 + 3 * j);
  }
  PetscCall(MbsModelResidual(model, 0, U, Udot, F)); /* rows 12..23: M q' */
  Resultant(F + 12, U, got_P, got_L);
  tensor[0] = moment[0];
  tensor[4] = moment[1];
  tensor[8] = moment[2];
  tensor[1] = tensor[3] = moment[3];
  tensor[5] = tensor[7] = moment[4];
  tensor[2] = tensor[6] = moment[5];
  Times(R, PETSC_TRUE, w, t1);
  Times(tensor, PETSC_FALSE, t1, t2);
  Times(R, PETSC_FALSE, t2, want_L);
  for (PetscInt k = 0; k < 3; k++) {
    PetscCall(MbsTestClose(test, "linear momentum m r'", got_P[k], m * vel[k], 1e-14, 0));
    PetscCall(MbsTestClose(test, "angular momentum R I R^T w, I from the parameters", got_L[k], want_L[k], 0, 1e-14));
  }
  PetscCall(PetscFree3(U, Udot, F));
  PetscCall(MbsModelDestroy(&model));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsTest test = {0, 0};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(CheckBushing(&test));
  PetscCall(CheckEngineLoads(&test));
  PetscCall(CheckSweep(&test, PETSC_FALSE));
  PetscCall(CheckSweep(&test, PETSC_TRUE));
  PetscCall(CheckHistory(&test, PETSC_FALSE));
  PetscCall(CheckHistory(&test, PETSC_TRUE));
  PetscCall(CheckInertia(&test));
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFinalize());
  return 0;
}
