/*
  Optimal input design (oscillator2.md and cart_pendulum.md, sections 4-7): the A-optimal cost of a nodal input

    J(F) = -Tr M(F) + rho/2 sum_{i in end} U_i(tf)^2,     Tr M = int sum_j y_bj(t)^2 dt   (R = I),

  on the sensitivity-extended system (models/sensitivity.c), with y_bj = dy/dU S_j. The Fisher matrix
  M_jl = int y_bj y_bl dt and the trace are integrated by the integrator's own quadrature rule during the forward
  solve, and dJ/dF_k for all nodes comes from ONE discrete adjoint solve of the extended system, whatever the number
  of nodes: the cost the optimiser sees is the exact discrete function that the adjoint differentiates.

  The optimiser works on unconstrained u_k with F_k = psi(u_k) = (2 F_max/pi) atan(pi u_k/(2 F_max)) (section 4), so
  |F(t)| < F_max for every u, and dJ/du_k = psi'(u_k) dJ/dF_k.
*/
#include "identification/identificationimpl.h"
#include <petscblaslapack.h>

static PetscErrorCode MbsDesignParameters_Private(MbsDesign d, PetscToken token)
{
  char *name;

  PetscFunctionBeginUser;
  d->nb = 0;
  for (;;) {
    PetscCall(PetscTokenFind(token, &name));
    if (!name) break;
    PetscCheck(d->nb < MBS_DESIGN_MAX_PARAMETERS, d->comm, PETSC_ERR_ARG_SIZ, "-design_parameters: at most %d parameters", MBS_DESIGN_MAX_PARAMETERS);
    PetscCall(MbsModelGetParameterIndex(d->base, name, &d->b[d->nb]));
    /* a parameter twice makes two equal columns of M: a singular Fisher matrix that no input can improve */
    for (PetscInt j = 0; j < d->nb; j++) PetscCheck(d->b[j] != d->b[d->nb], d->comm, PETSC_ERR_ARG_WRONG, "-design_parameters names %s twice; give each parameter once", name);
    d->nb++;
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignCreate - Reads the model and its design problem from the options (-model, -design_*, -input_file) and
  builds the sensitivity-extended system; with -help, a model without a design problem is read and listed alone (no
  extended system is built then). Collective.
@*/
PetscErrorCode MbsDesignCreate(MPI_Comm comm, MbsDesign *design)
{
  MbsDesign            d;
  const MbsDesignSpec *spec;
  char                *names[MBS_DESIGN_MAX_PARAMETERS], parameters[256] = "";
  PetscInt             nnames = MBS_DESIGN_MAX_PARAMETERS, nend = 4, ninput;
  PetscBool            set, help;
  const PetscReal     *input_t, *input_F;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&d));
  *design = d; /* partly built on an error: the caller's MbsDesignDestroy() frees it */
  d->comm = comm;
  PetscCall(MbsModelCreate(comm, &d->base));
  PetscCall(MbsModelSetType(d->base, "oscillator2")); /* the default model of a design */
  PetscCall(MbsModelSetFromOptions(d->base));
  PetscCall(MbsModelGetDesignSpec(d->base, &spec));
  PetscCall(PetscStrncpy(parameters, spec->parameters ? spec->parameters : "", sizeof(parameters)));
  d->nnodes     = spec->nodes ? spec->nodes : 101; /* a model without a design problem of its own: the specs' 101 */
  d->force_max  = spec->force_max;
  d->end_weight = spec->end_weight;
  d->cost_scale = spec->cost_scale > 0 ? spec->cost_scale : 1;
  d->nend       = spec->nend;
  PetscCall(PetscArraycpy(d->end, spec->end, spec->nend));
  MbsOptionsBegin(comm, NULL, "Optimal input design (mbsid design; the model's spec, sections 4-8)", "MbsDesign");
  PetscCall(PetscOptionsStringArray("-design_parameters", "Parameters b of the Fisher information, comma separated (default: the model's)", "MbsDesignCreate", names, &nnames, &set));
  if (set) {
    parameters[0] = 0;
    for (PetscInt i = 0; i < nnames; i++) {
      if (i) PetscCall(MbsStrlcat(parameters, ",", sizeof(parameters)));
      PetscCall(MbsStrlcat(parameters, names[i], sizeof(parameters)));
      PetscCall(PetscFree(names[i]));
    }
  }
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-design_nodes", "Input nodes over [t0, tf] (piecewise-linear force)", &d->nnodes, 2, 100000, NULL));
  PetscCall(PetscOptionsReal("-design_force_max", "Input bound F_max [N]", "MbsDesignCreate", d->force_max, &d->force_max, NULL));
  PetscCall(MbsOptionsIntArray(PetscOptionsObject, "-design_end_states", "States U_i held at zero at tf by the terminal penalty, indices", "MbsDesignCreate", d->nend, d->end, &nend, &set));
  if (set) d->nend = nend;
  PetscCall(PetscOptionsReal("-design_end_weight", "Weight rho of the terminal penalty rho/2 sum U_i(tf)^2", "MbsDesignCreate", d->end_weight, &d->end_weight, NULL));
  PetscCall(PetscOptionsReal("-design_cost_scale", "The optimiser sees J/scale (T_ref of the spec)", "MbsDesignCreate", d->cost_scale, &d->cost_scale, NULL));
  MbsOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help && (!parameters[0] || d->force_max <= 0)) PetscFunctionReturn(0); /* -help of a model without a design problem: no extended system */
  PetscCheck(parameters[0], comm, PETSC_ERR_ARG_WRONG, "Model %s has no input design problem of its own: give -design_parameters and -design_force_max", d->base->type);
  PetscCheck(d->force_max > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-design_force_max must be a positive force [N], got %g", (double)d->force_max);
  PetscCheck(d->end_weight >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-design_end_weight must be >= 0, got %g", (double)d->end_weight);
  PetscCheck(d->cost_scale > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-design_cost_scale must be positive, got %g", (double)d->cost_scale);
  for (PetscInt i = 0; i < d->nend; i++)
    PetscCheck(d->end[i] >= 0 && d->end[i] < d->base->n, comm, PETSC_ERR_ARG_OUTOFRANGE, "-design_end_states: index %" PetscInt_FMT " is not a state of model %s (0..%" PetscInt_FMT ")", d->end[i], d->base->type, d->base->n - 1);

  { /* the parameters by name */
    PetscToken token;

    PetscCall(PetscTokenCreate(parameters, ',', &token));
    MbsCallCleanup(MbsDesignParameters_Private(d, token), PetscTokenDestroy(&token));
  }

  /* the nodes, and the input to start from: -input_file, or F0 = F_max/2 */
  PetscCall(PetscMalloc2(d->nnodes, &d->t_nodes, d->nnodes, &d->F));
  for (PetscInt k = 0; k < d->nnodes; k++) d->t_nodes[k] = k == d->nnodes - 1 ? d->base->tf : d->base->t0 + k * (d->base->tf - d->base->t0) / (d->nnodes - 1);
  PetscCall(MbsModelGetNodalInput(d->base, &ninput, &input_t, &input_F));
  if (ninput) {
    PetscCheck(ninput == d->nnodes, comm, PETSC_ERR_ARG_SIZ, "-input_file has %" PetscInt_FMT " nodes, the design %" PetscInt_FMT " (-design_nodes)", ninput, d->nnodes);
    for (PetscInt k = 0; k < d->nnodes; k++) {
      PetscCheck(PetscAbsReal(input_t[k] - d->t_nodes[k]) <= 1e-9 * (d->base->tf - d->base->t0), comm, PETSC_ERR_ARG_WRONG, "-input_file: node %" PetscInt_FMT " lies at t = %g s, the design's at %g s (equal spacing over [t0, tf])", k, (double)input_t[k],
                 (double)d->t_nodes[k]);
      PetscCheck(PetscAbsReal(input_F[k]) < d->force_max, comm, PETSC_ERR_ARG_OUTOFRANGE, "-input_file: node %" PetscInt_FMT " (t = %g s) has force %g N, not inside the bound (-F_max, F_max) = +-%g N", k, (double)d->t_nodes[k], (double)input_F[k],
                 (double)d->force_max);
    }
    PetscCall(PetscArraycpy(d->F, input_F, d->nnodes));
  } else {
    for (PetscInt k = 0; k < d->nnodes; k++) d->F[k] = 0.5 * d->force_max;
    PetscCall(MbsModelSetNodalInput(d->base, d->nnodes, d->t_nodes, d->F));
  }
  PetscCall(MbsModelCreateSensitivity(d->base, d->nb, d->b, &d->ext));
  PetscCall(PetscMalloc2(d->nnodes, &d->node_id, d->base->n, &d->dydu));
  for (PetscInt k = 0; k < d->nnodes; k++) d->node_id[k] = d->base->np + k;
  {
    PetscReal *u, y;

    PetscCall(PetscCalloc1(d->base->n, &u));
    PetscCall(MbsModelOutput(d->base, d->base->t0, u, &y, d->dydu));
    PetscCall(PetscFree(u));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignDestroy - Frees the design problem and its models. Not collective.
@*/
PetscErrorCode MbsDesignDestroy(MbsDesign *design)
{
  PetscFunctionBeginUser;
  if (!*design) PetscFunctionReturn(0);
  PetscCall(MbsModelDestroy(&(*design)->ext));
  PetscCall(MbsModelDestroy(&(*design)->base));
  PetscCall(PetscFree2((*design)->t_nodes, (*design)->F));
  PetscCall(PetscFree2((*design)->node_id, (*design)->dydu));
  PetscCall(PetscFree(*design));
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignUnits - The units attribute of a design quantity per pair (i, j) of design parameters, "<y>^2<per>/(b_i b_j)",
  or with pair NULL those of the parameters themselves, followed by the list "b = c2 [N/m], d2 [N s/m]". Not collective.
@*/
PetscErrorCode MbsDesignUnits(MbsDesign d, const char pair[], char text[], size_t size)
{
  PetscFunctionBeginUser;
  if (pair) PetscCall(PetscSNPrintf(text, size, "(%s)^2%s/(b_i b_j), b = ", d->base->output_unit, pair));
  else PetscCall(PetscSNPrintf(text, size, "the unit of each b_j, b = "));
  for (PetscInt j = 0; j < d->nb; j++) {
    char one[96];

    PetscCall(PetscSNPrintf(one, sizeof(one), "%s%s [%s]", j ? ", " : "", d->base->param_info[d->b[j]].name, d->base->param_info[d->b[j]].unit));
    PetscCall(MbsStrlcat(text, one, size));
  }
  PetscFunctionReturn(0);
}

/* F = psi(u) = (2 F_max/pi) atan(pi u/(2 F_max)) and psi'(u) = 1/(1 + (u/s)^2), s = 2 F_max/pi */
PetscReal MbsDesignPsi(MbsDesign d, PetscReal u)
{
  PetscReal s = 2 * d->force_max / PETSC_PI;

  return s * PetscAtanReal(u / s);
}

PetscReal MbsDesignPsiDerivative(MbsDesign d, PetscReal u)
{
  PetscReal s = 2 * d->force_max / PETSC_PI;

  return 1 / (1 + (u / s) * (u / s));
}

PetscReal MbsDesignPsiInverse(MbsDesign d, PetscReal F)
{
  PetscReal s = 2 * d->force_max / PETSC_PI;

  return s * PetscTanReal(F / s);
}

/*@C
  MbsDesignSetInput - The input of the next evaluations: the nodal forces F (nnodes), or with F = NULL the continuous
  comparison sine F_max sin(2 pi (t - t0)/(tf - t0)). Not collective.
@*/
PetscErrorCode MbsDesignSetInput(MbsDesign d, const PetscReal F[])
{
  PetscFunctionBeginUser;
  if (F) {
    PetscCall(MbsModelSetNodalInput(d->base, d->nnodes, d->t_nodes, F));
    for (PetscInt k = 0; k < d->nnodes; k++) PetscCall(MbsModelSetParameter(d->ext, d->base->np + k, F[k]));
  } else PetscCall(MbsModelSetSineInput(d->base, d->force_max));
  PetscFunctionReturn(0);
}

/* y_bj = dy/dU S_j */
static void MbsDesignOutputSensitivities_Private(MbsDesign d, const PetscReal z[], PetscReal yb[])
{
  PetscInt n = d->base->n;

  for (PetscInt j = 0; j < d->nb; j++) {
    yb[j] = 0;
    for (PetscInt i = 0; i < n; i++) yb[j] += d->dydu[i] * z[(1 + j) * n + i];
  }
}

/* r = [-sum_j y_bj^2, M_00, M_01, ...]: the cost's integral and the Fisher matrix; no direct dr/dp (drdp NULL) */
static PetscErrorCode MbsDesignIntegrand(MbsModel ext, PetscReal t, const PetscReal z[], PetscReal r[], PetscReal drdz[], PetscReal drdp[], void *ctx)
{
  MbsDesign d = (MbsDesign)ctx;
  PetscReal yb[MBS_DESIGN_MAX_PARAMETERS];
  PetscInt  n = d->base->n;

  PetscFunctionBeginUser;
  MbsDesignOutputSensitivities_Private(d, z, yb);
  r[0] = 0;
  for (PetscInt j = 0; j < d->nb; j++) r[0] -= yb[j] * yb[j];
  if (d->fisher)
    for (PetscInt j = 0; j < d->nb; j++)
      for (PetscInt l = 0; l < d->nb; l++) r[1 + j * d->nb + l] = yb[j] * yb[l];
  if (drdz)
    for (PetscInt j = 0; j < d->nb; j++)
      for (PetscInt i = 0; i < n; i++) drdz[(1 + j) * n + i] = -2 * yb[j] * d->dydu[i];
  PetscFunctionReturn(0);
}

/* w = rho/2 sum_{i in end} U_i(tf)^2 */
static PetscErrorCode MbsDesignTerminal(MbsModel ext, const PetscReal z[], PetscReal *w, PetscReal dwdz[], void *ctx)
{
  MbsDesign d = (MbsDesign)ctx;

  PetscFunctionBeginUser;
  if (w) *w = 0;
  for (PetscInt i = 0; i < d->nend; i++) {
    if (w) *w += 0.5 * d->penalty * z[d->end[i]] * z[d->end[i]];
    if (dwdz) dwdz[d->end[i]] = d->penalty * z[d->end[i]];
  }
  PetscFunctionReturn(0);
}

/* Fails with a message unless the integration succeeded */
PetscErrorCode MbsDesignCheckOk(MbsDesign d, PetscBool ok)
{
  PetscFunctionBeginUser;
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "The integration of the sensitivity system of model %s failed; see -ts_monitor, or take a smaller -ts_dt", d->base->type);
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignEvaluate - For the current input: J (with the terminal weight rho), Tr M, the Fisher matrix M (nb x nb, may be
  NULL) and the extended state at tf (may be NULL). With a monitor, it sees every accepted step of the extended system.
  Not collective.
@*/
PetscErrorCode MbsDesignEvaluate(MbsDesign d, PetscReal rho, MbsStateMonitor monitor, void *ctx, PetscReal *J, PetscReal *trace, PetscReal M[], PetscReal z_end[])
{
  MbsIntegralCost integral = {"the design cost", 1 + d->nb * d->nb, PETSC_TRUE, MbsDesignIntegrand, MbsDesignTerminal, NULL, d, NULL, PETSC_FALSE, NULL};
  PetscReal       Q[1 + MBS_DESIGN_MAX_PARAMETERS * MBS_DESIGN_MAX_PARAMETERS], *z, w;
  PetscBool       ok;

  PetscFunctionBeginUser;
  d->fisher  = PETSC_TRUE;
  d->penalty = rho;
  PetscCall(PetscMalloc1(d->ext->n, &z));
  MbsCallUndo(MbsIntegralGradient(d->ext, &integral, 0, NULL, monitor, ctx, Q, z, NULL, &ok), PetscFree(z));
  MbsCallUndo(MbsDesignCheckOk(d, ok), PetscFree(z));
  PetscCall(MbsDesignTerminal(d->ext, z, &w, NULL, d));
  if (J) *J = Q[0] + w;
  if (trace) *trace = -Q[0];
  if (M) PetscCall(PetscArraycpy(M, Q + 1, d->nb * d->nb));
  if (z_end) PetscCall(PetscArraycpy(z_end, z, d->ext->n));
  PetscCall(PetscFree(z));
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignGradient - J = -Tr M + rho/2 sum U_i(tf)^2 of the nodal input F and dJ/dF_k of every node by one adjoint
  solve. *ok is PETSC_FALSE when the integration fails. Not collective.
@*/
PetscErrorCode MbsDesignGradient(MbsDesign d, const PetscReal F[], PetscReal rho, PetscReal *J, PetscReal dJdF[], PetscBool *ok)
{
  MbsIntegralCost integral = {"the design cost", 1, PETSC_TRUE, MbsDesignIntegrand, MbsDesignTerminal, NULL, d, NULL, PETSC_FALSE, NULL};
  PetscReal       Q, w, *z;

  PetscFunctionBeginUser;
  d->fisher  = PETSC_FALSE;
  d->penalty = rho;
  PetscCall(MbsDesignSetInput(d, F));
  PetscCall(PetscMalloc1(d->ext->n, &z));
  MbsCallUndo(MbsIntegralGradient(d->ext, &integral, d->nnodes, d->node_id, NULL, NULL, &Q, z, dJdF, ok), PetscFree(z));
  *J = PETSC_INFINITY;
  if (*ok) {
    PetscCall(MbsDesignTerminal(d->ext, z, &w, NULL, d));
    *J = Q + w;
  }
  PetscCall(PetscFree(z));
  PetscFunctionReturn(0);
}

/* Keeps the extended state at the given times, which must be step points (fixed steps that divide their spacing) */
static PetscErrorCode MbsDesignSampleMonitor(MbsModel ext, PetscInt step, PetscReal t, const PetscReal z[], void *ctx)
{
  MbsDesignSamples *s   = (MbsDesignSamples *)ctx;
  PetscReal         tol = 1e-9 * (ext->tf - ext->t0);

  PetscFunctionBeginUser;
  if (s->next < s->n && PetscAbsReal(t - s->t[s->next]) <= tol) {
    PetscCall(PetscArraycpy(s->z + s->next * ext->n, z, ext->n));
    s->next++;
  }
  PetscCheck(s->next >= s->n || t < s->t[s->next] + tol, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The integrator stepped over the sample time %g s (now at %g s): samples need fixed steps (-ts_adapt_type none) with -ts_dt dividing their spacing",
             (double)s->t[s->next], (double)t);
  PetscFunctionReturn(0);
}

/* The fixed step of the design's integrator as the options set it, and whether its steps are fixed */
static PetscErrorCode MbsDesignStep_Private(MbsDesign d, PetscReal *dt, PetscBool *fixed, char adapt[], size_t size)
{
  PetscFunctionBeginUser;
  *dt = d->ext->dt;
  PetscCall(PetscStrncpy(adapt, TSADAPTNONE, size));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ts_dt", dt, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ts_adapt_type", adapt, size, NULL));
  PetscCall(PetscStrcmp(adapt, TSADAPTNONE, fixed));
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignCheckSteps - Before any solve: a -time_span of more fixed steps than a solve may take is refused
  (MbsCheckFixedStepCount()). Collective.
@*/
PetscErrorCode MbsDesignCheckSteps(MbsDesign d)
{
  PetscReal dt;
  PetscBool fixed;
  char      adapt[64];

  PetscFunctionBeginUser;
  PetscCall(MbsDesignStep_Private(d, &dt, &fixed, adapt, sizeof(adapt)));
  if (fixed && dt > 0) PetscCall(MbsCheckFixedStepCount(d->base, dt));
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignCheckSampleTimes - Before any solve: the n times t (from the option named 'option') must increase within
  [t0, tf] and be step points of the fixed steps (-ts_adapt_type none, -ts_dt dividing t - t0), where
  MbsDesignSample() keeps the state. Collective.
@*/
PetscErrorCode MbsDesignCheckSampleTimes(MbsDesign d, const char option[], PetscInt n, const PetscReal t[])
{
  PetscReal t0 = d->base->t0, tf = d->base->tf, tol = 1e-9 * (tf - t0), dt;
  char      adapt[64];
  PetscBool fixed;

  PetscFunctionBeginUser;
  if (!n) PetscFunctionReturn(0);
  PetscCall(MbsDesignStep_Private(d, &dt, &fixed, adapt, sizeof(adapt)));
  PetscCheck(fixed, d->comm, PETSC_ERR_ARG_INCOMP, "%s: states are kept at step points, which need fixed steps (-ts_adapt_type none, not %s)", option, adapt);
  for (PetscInt i = 0; i < n; i++) {
    PetscReal steps = (t[i] - t0) / dt;

    PetscCheck(t[i] >= t0 - tol && t[i] <= tf + tol, d->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: time %g s lies outside the design's interval [%g, %g] s (-time_span)", option, (double)t[i], (double)t0, (double)tf);
    PetscCheck(i == 0 || t[i] > t[i - 1], d->comm, PETSC_ERR_ARG_WRONG, "%s: time %g s follows %g s; the times must increase", option, (double)t[i], (double)t[i - 1]);
    PetscCheck(PetscAbsReal(steps - PetscFloorReal(steps + 0.5)) * dt <= tol, d->comm, PETSC_ERR_ARG_INCOMP, "%s: time %g s is not a step point of the fixed steps -ts_dt %g s from t0 = %g s; choose times (or -ts_dt) so that -ts_dt divides t - t0", option, (double)t[i], (double)dt, (double)t0);
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignSample - Integrates the extended system for the current input and parameters and keeps its state z at the
  times s->t[0..n-1] (s->z, n x N row by row). Returns J, Tr M and M as MbsDesignEvaluate(). Not collective.
@*/
PetscErrorCode MbsDesignSample(MbsDesign d, PetscReal rho, MbsDesignSamples *s, PetscReal *J, PetscReal *trace, PetscReal M[], PetscReal z_end[])
{
  PetscFunctionBeginUser;
  s->next = 0;
  PetscCall(MbsDesignEvaluate(d, rho, MbsDesignSampleMonitor, s, J, trace, M, z_end));
  PetscCheck(s->next == s->n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Only %" PetscInt_FMT " of %" PetscInt_FMT " sample times were step points of the integration: samples need fixed steps with -ts_dt dividing their spacing", s->next, s->n);
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignGetSizes - The numbers of design parameters b, of input nodes and of states of the extended system. Not collective.
@*/
PetscErrorCode MbsDesignGetSizes(MbsDesign d, PetscInt *nb, PetscInt *nnodes, PetscInt *N)
{
  PetscFunctionBeginUser;
  if (nb) *nb = d->nb;
  if (nnodes) *nnodes = d->nnodes;
  if (N) *N = d->ext->n;
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignEigen - Eigenvalues (ascending) and, when vectors is not NULL, eigenvectors (columns) of a symmetric n x n
  matrix, n <= MBS_DESIGN_MAX_PARAMETERS, and its condition number lambda_max/lambda_min (infinite unless positive
  definite). Not collective.
@*/
PetscErrorCode MbsDesignEigen(PetscInt n, const PetscReal A[], PetscReal eig[], PetscReal vectors[], PetscReal *condition)
{
  PetscReal    work[64], a[MBS_DESIGN_MAX_PARAMETERS * MBS_DESIGN_MAX_PARAMETERS];
  PetscBLASInt bn, lwork = 64, info;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscArraycpy(a, A, n * n));
  PetscCallBLAS("LAPACKsyev", LAPACKsyev_("V", "U", &bn, a, &bn, eig, work, &lwork, &info));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK dsyev failed (info %d)", (int)info);
  if (vectors) PetscCall(PetscArraycpy(vectors, a, n * n));
  *condition = eig[0] > 0 ? eig[n - 1] / eig[0] : PETSC_INFINITY;
  PetscFunctionReturn(0);
}
