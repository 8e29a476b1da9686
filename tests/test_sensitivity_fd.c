static const char help[] = "Checks the forward sensitivities S(tf) = dU(tf)/dp_j of a model's sensitivity-extended system against central differences of two forward solves.\n";

/*
  The sensitivity-extended system Z = [U, S] (sensitivity.c) integrated over the model's time span, against

    (U(tf; p_j + h) - U(tf; p_j - h)) / 2h,   h = -fd_rel |p_j|,

  every differential component of U(tf) (coordinates and rates: a DAE's multipliers carry the integrator's own
  oscillation of an index-2 system) to -rtol of max |S(tf)|, and the output's sensitivity dy/dU S at tf to -rtol of
  |dy/dU|_1 max |S(tf)| (the max over the components the output reads too): the differences' error is one of the
  state's scale (rounding eps |U| / h, the solves' tolerance), not of the output's, and that is the bound the state's
  check gives the output (an output sensitivity small against the state's would else be held to its own size).
  A DAE (a described model) also starts from its S(t0) = dU(t0)/dp_j, the multipliers' share, and the S'(t0) of the
  sensitivity equations at t0, which must make the extended residual vanish at t0 (CheckStart). With -input_start the
  model is driven by a nodal input of three nodes, and dZ(t0)/dF_0 of the extended system (ops.initial_state_p,
  through the adjoint's lambda(t0)^T dZ(t0)/dF_0 with lambda(t0) = e_i) must equal central differences of its
  consistent start in F_0, component by component (CheckInputStart).
*/
#include "mbstest.h"
#include "models/modelimpl.h"
#include <petscsys.h>

typedef struct {
  PetscInt   n;   /* of the state recorded */
  PetscReal *end; /* its last step point */
} End;

static PetscErrorCode RecordEnd(MbsModel model, PetscInt step, PetscReal t, const PetscReal u[], void *ctx)
{
  End *end = (End *)ctx;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(end->end, u, end->n));
  PetscFunctionReturn(0);
}

/* U(tf) (n) of a solve at the model's parameters p */
static PetscErrorCode SolveEnd(MbsModel model, const PetscReal p[], PetscInt n, PetscReal u_end[])
{
  End       end = {n, u_end};
  MbsSignal signal;

  PetscFunctionBeginUser;
  PetscCall(MbsModelSetParameters(model, p));
  PetscCall(MbsSimulate(model, NULL, RecordEnd, &end, &signal));
  PetscCall(MbsSignalDestroy(&signal));
  PetscFunctionReturn(0);
}

/*
  The extended model's start is consistent: its residual at (t0, Z(t0), Z'(t0)) vanishes in the sensitivity rows, to
  1e-10 of the forcing dF/dp_j there; where p_j does not enter F (a body's initial state: dF/dp_j = 0, S(t0) =
  dU(t0)/dp_j alone drives the sensitivities), of the terms |dF/dU| |S| + |dF/dU'| |S'| that cancel (a DAE's S(t0) and
  S'(t0) of SensitivityInitialState)
*/
static PetscErrorCode CheckStart(MbsTest *test, MbsModel model, MbsModel ext, PetscInt j)
{
  PetscInt  n, np;
  PetscReal t0, *z, *zdot, *g, *Jp, *J0, *J1, forcing = 0, cancelling = 0, residual = 0;
  char      line[256];

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, &np));
  PetscCall(MbsModelGetTimeSpan(model, &t0, NULL, NULL));
  PetscCall(PetscMalloc6(2 * n, &z, 2 * n, &zdot, 2 * n, &g, n * np, &Jp, n * n, &J0, n * n, &J1));
  PetscCall(MbsModelInitialState(ext, t0, z, zdot));
  PetscCall(MbsModelResidual(ext, t0, z, zdot, g));
  PetscCall(MbsModelJacobianP(model, t0, z, zdot, Jp));
  PetscCall(MbsModelJacobian(model, t0, z, zdot, 0, J0));
  PetscCall(MbsModelJacobian(model, t0, z, zdot, 1, J1));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal terms = 0;

    for (PetscInt k = 0; k < n; k++) terms += PetscAbsReal(J0[i + k * n] * z[n + k]) + PetscAbsReal((J1[i + k * n] - J0[i + k * n]) * zdot[n + k]);
    forcing    = PetscMax(forcing, PetscAbsReal(Jp[i + j * n]));
    cancelling = PetscMax(cancelling, terms);
    residual   = PetscMax(residual, PetscAbsReal(g[n + i]));
  }
  if (forcing == 0) forcing = cancelling;
  PetscCall(PetscSNPrintf(line, sizeof(line), "consistent start of the sensitivities: residual %.2e of the forcing %.3e at t0", (double)residual, (double)forcing));
  PetscCall(MbsTestTrue(test, line, (PetscBool)(residual <= 1e-10 * forcing)));
  PetscCall(PetscFree6(z, zdot, g, Jp, J0, J1));
  PetscFunctionReturn(0);
}

/*
  dZ(t0)/dF_0 of the extended model of a DAE driven by a nodal input (its multipliers, and the S_j(t0) through them),
  as the adjoint adds it (MbsModelInitialStateGradient with lambda(t0) = e_i), against central differences of the
  consistent start Z(t0) in F_0 (linear in F_0: the differences are exact but for rounding), to -rtol of the largest;
  the sensitivities' block must move (else the check would not see SensitivityInitialStateP's second part)
*/
static PetscErrorCode CheckInputStart(MbsTest *test, MbsModel model, MbsModel ext, PetscReal rtol)
{
  PetscInt  n, np, N, npe, id, worst_i = -1;
  PetscReal t0, F0, h, *zp, *zm, *zdot, *e, *pe, g, worst = 0, scale = 0, scale_s = 0;
  char      line[256];

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, &np));
  PetscCall(MbsModelGetSizes(ext, &N, NULL, &npe));
  PetscCall(MbsModelGetTimeSpan(model, &t0, NULL, NULL));
  PetscCall(PetscCalloc5(N, &zp, N, &zm, N, &zdot, N, &e, npe, &pe));
  id = np; /* F_0, the first node after the base parameters */
  PetscCall(MbsModelGetParameters(ext, pe));
  F0 = pe[id];
  h  = 1e-3 * PetscMax(1, PetscAbsReal(F0));
  PetscCall(MbsModelSetParameter(ext, id, F0 + h));
  PetscCall(MbsModelInitialState(ext, t0, zp, zdot));
  PetscCall(MbsModelSetParameter(ext, id, F0 - h));
  PetscCall(MbsModelInitialState(ext, t0, zm, zdot));
  PetscCall(MbsModelSetParameter(ext, id, F0));
  for (PetscInt i = 0; i < N; i++) {
    PetscReal fd = (zp[i] - zm[i]) / (2 * h);

    e[i] = 1;
    g    = 0;
    PetscCall(MbsModelInitialStateGradient(ext, t0, 1, &id, e, &g));
    e[i] = 0;
    if (PetscAbsReal(g - fd) > worst) worst_i = i;
    worst = PetscMax(worst, PetscAbsReal(g - fd));
    scale = PetscMax(scale, PetscAbsReal(fd));
    if (i >= n) scale_s = PetscMax(scale_s, PetscAbsReal(fd));
  }
  PetscCall(PetscSNPrintf(line, sizeof(line), "dZ(t0)/dF_0 against central differences of the start: largest difference %.2e (component %" PetscInt_FMT " of %" PetscInt_FMT ") of max %.3e, the sensitivities' part max %.3e", (double)worst, worst_i, N, (double)scale, (double)scale_s));
  PetscCall(MbsTestTrue(test, line, (PetscBool)(scale_s > 0 && worst <= rtol * scale)));
  PetscCall(PetscFree5(zp, zm, zdot, e, pe));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsModel         model, ext;
  MbsTest          test     = {0, 0};
  char             name[64] = "";
  PetscInt         n, np, np_ext, j, worst_i = -1;
  const PetscBool *differential;
  PetscBool        algebraic = PETSC_FALSE, input_start = PETSC_FALSE;
  PetscReal        fd_rel = 1e-5, rtol = 1e-6, *p, *p_ext, *z, *up, *um, scale = 0, worst = 0, y, *dydu, ys = 0, yfd = 0, yscale, dydu_norm = 0;
  char             line[256];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Sensitivity test", "");
  PetscCall(PetscOptionsString("-parameter", "The parameter p_j of the sensitivities", "", name, name, sizeof(name), NULL));
  PetscCall(PetscOptionsReal("-fd_rel", "Relative step of the central differences", "", fd_rel, &fd_rel, NULL));
  PetscCall(PetscOptionsBool("-algebraic", "Compare the algebraic components (a DAE's multipliers) too", "", algebraic, &algebraic, NULL));
  PetscCall(PetscOptionsReal("-rtol", "Tolerance, relative to the largest sensitivity", "", rtol, &rtol, NULL));
  PetscCall(PetscOptionsBool("-input_start", "Drive the model by a nodal input of 3 nodes and check dZ(t0)/dF_0 of the extended system", "", input_start, &input_start, NULL));
  PetscOptionsEnd();
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(MbsModelGetParameterIndex(model, name, &j));
  PetscCall(MbsModelGetDifferentialInfo(model, &differential, NULL, NULL));
  if (input_start) {
    PetscReal t0, tf, t[3], F[3] = {0.7, -0.3, 0.2};

    PetscCall(MbsModelGetTimeSpan(model, &t0, &tf, NULL));
    t[0] = t0;
    t[1] = 0.5 * (t0 + tf);
    t[2] = tf;
    PetscCall(MbsModelSetNodalInput(model, 3, t, F));
  }
  PetscCall(MbsModelCreateSensitivity(model, 1, &j, &ext));
  /* after the nodal input, whose nodes are parameters too, and the extended model's own count: each model is solved at
     all of its parameters */
  PetscCall(MbsModelGetSizes(model, &n, NULL, &np));
  PetscCall(MbsModelGetSizes(ext, NULL, NULL, &np_ext));
  PetscCall(PetscMalloc6(np, &p, np_ext, &p_ext, 2 * n, &z, n, &up, n, &um, n, &dydu));
  PetscCall(MbsModelGetParameters(model, p));
  PetscCall(MbsModelGetParameters(ext, p_ext));
  PetscCall(CheckStart(&test, model, ext, j));
  if (input_start) PetscCall(CheckInputStart(&test, model, ext, rtol));
  PetscCall(SolveEnd(ext, p_ext, 2 * n, z));
  {
    PetscReal pj = p[j], h = fd_rel * PetscAbsReal(pj);

    p[j] = pj + h;
    PetscCall(SolveEnd(model, p, n, up));
    p[j] = pj - h;
    PetscCall(SolveEnd(model, p, n, um));
    p[j] = pj;
    PetscCall(MbsModelSetParameters(model, p));
    for (PetscInt i = 0; i < n; i++) {
      PetscReal fd = (up[i] - um[i]) / (2 * h);

      if (!differential[i] && !algebraic) continue;

      scale = PetscMax(scale, PetscAbsReal(z[n + i]));
      if (PetscAbsReal(z[n + i] - fd) > worst) worst_i = i;
      worst = PetscMax(worst, PetscAbsReal(z[n + i] - fd));
    }
    PetscCall(MbsModelOutput(model, 0, z, &y, dydu));
    yscale = scale;
    for (PetscInt i = 0; i < n; i++) {
      ys += dydu[i] * z[n + i];
      yfd += dydu[i] * (up[i] - um[i]) / (2 * h);
      dydu_norm += PetscAbsReal(dydu[i]);
      if (dydu[i] != 0) yscale = PetscMax(yscale, PetscAbsReal(z[n + i]));
    }
  }
  PetscCall(PetscSNPrintf(line, sizeof(line), "S(tf) = dU(tf)/d%s against central differences of two solves: largest difference %.2e (component %" PetscInt_FMT " of %" PetscInt_FMT ") of max |S| = %.3e", name, (double)worst, worst_i, n, (double)scale));
  PetscCall(MbsTestTrue(&test, line, (PetscBool)(scale > 0 && worst <= rtol * scale)));
  PetscCall(MbsTestClose(&test, "output sensitivity dy/dU S at tf", ys, yfd, rtol, rtol * dydu_norm * yscale));
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFree6(p, p_ext, z, up, um, dydu));
  PetscCall(MbsModelDestroy(&ext));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(PetscFinalize());
  return 0;
}
