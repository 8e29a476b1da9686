/*
  How sure is an identified parameter set: Gauss-Newton statistics at the identified parameters p.

  Each experiment's cost is J_e = sum_i w_i r_i^2 over its residuals (MbsCostResiduals). S = dr/dp is the derivative
  of the discrete residuals on the steps of the solve at p (frozen steps): from that solve itself, with forward
  sensitivities, where the method has them on its quadrature nodes (least_squares.c: cn, beuler, end-point theta; one
  solve per experiment, its residuals those at p), else,
  or with -confidence_differences, from central differences (1 + 2 n solves per experiment, for every integrator, cost
  and model; a one-sided difference for a parameter on one of its bounds). H = S^T W S is J's Gauss-Newton Hessian / 2.

  The noise sits on the measured values d_l (signal samples or amplitudes, the cost says which): independent, with a
  standard deviation sigma_c per measured channel c (one sigma for a one-channel file); the residuals move by D dd
  (the cost's data map). p minimises J, so to first order

    dp = -H^{-1} S^T W D dd,    Cov(p) = H^{-1} (sum_c sigma_c^2 G_c) H^{-1},    G_c = (D_c^T W S)^T (D_c^T W S),

  D_c the columns of channel c's values: the textbook sigma^2 (S^T S)^{-1} when every residual is one measured value
  with unit weight. A sigma_c not given (-noise_sigma, -channel_noise) is estimated from the residual: at the minimum,
  with the model right, channel c's part of J, J_c = r_c^T W r_c, has the expectation

    E J_c = sigma_c^2 (tr(D_c^T W D_c) - 2 tr(H^{-1} G_c)) + sum_k sigma_k^2 tr(H_c H^{-1} G_k H^{-1}),   H = sum_c H_c,

  a linear system in the sigma_c^2 that is solved with the measured J_c (for one channel: sigma^2 = J /
  (tr(D^T W D) - tr(H^{-1} G))). A model error makes sigma, and the intervals, larger. nu = (measured values in J) - n
  degrees of freedom and Student's t quantile for the 95 % intervals (the normal one when every sigma_c is given).
  The Fisher information reported is Cov^{-1}.

  Experiments are independent: their H, G and J are computed by their ranks and summed in experiment order, so the
  numbers do not depend on the number of ranks.
*/
#include "identification/identificationimpl.h"
#include <petscblaslapack.h>

static PetscErrorCode MbsResidualSetPrepare(MbsModel model, const MbsSignal *signal, void *ctx, PetscBool *usable)
{
  MbsResidualSet *set = (MbsResidualSet *)ctx;
  PetscReal       J;

  PetscFunctionBeginUser;
  PetscCall(MbsCostSignalUsable(set->cost, signal, usable));
  if (!*usable) PetscFunctionReturn(0);
  PetscCall(MbsCostEvaluate(set->cost, signal, &J));
  PetscCall(MbsResidualSetCompute(set, signal));
  PetscFunctionReturn(0);
}

/* The residuals of an experiment at the objective's current values */
static PetscErrorCode MbsExperimentResiduals_Private(MbsObjective obj, PetscInt e, const PetscReal x[], MbsResidualSet *set, PetscBool *ok)
{
  MbsExperiment  *exp      = &obj->exp[e];
  MbsIntegralCost integral = {"the residuals", 1, PETSC_FALSE, NULL, NULL, MbsResidualSetPrepare, set, NULL, PETSC_FALSE, NULL};

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveSetValues(obj, x));
  set->cost = exp->cost;
  PetscCall(MbsExperimentOptionsPush(exp));
  PetscCall(MbsIntegralGradient(exp->model, &integral, 0, NULL, NULL, NULL, NULL, NULL, NULL, ok));
  PetscCall(MbsExperimentOptionsPop(exp));
  PetscFunctionReturn(0);
}

/* The channels of experiment e's cost are those of the objective's cost, in the same order: sigma_c is a channel's */
static PetscErrorCode MbsConfidenceChannelsMatch_Private(MbsObjective obj, PetscInt e)
{
  PetscInt nchannel, nexp_channel;

  PetscFunctionBeginUser;
  PetscCall(MbsCostGetNumChannels(obj->cost, &nchannel));
  PetscCall(MbsCostGetNumChannels(obj->exp[e].cost, &nexp_channel));
  PetscCheck(nexp_channel == nchannel, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Confidence: experiment %s compares %" PetscInt_FMT " measured channels, the first experiment %" PetscInt_FMT "; the noise of a channel is estimated over every experiment, which needs the same channels in each",
             obj->exp[e].name, nexp_channel, nchannel);
  for (PetscInt c = 0; c < nchannel; c++) {
    const char *name, *exp_name, *unit;
    PetscBool   same;

    PetscCall(MbsCostGetChannel(obj->cost, c, &name, &unit));
    PetscCall(MbsCostGetChannel(obj->exp[e].cost, c, &exp_name, &unit));
    PetscCall(PetscStrcmp(name, exp_name, &same));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Confidence: experiment %s compares channel '%s' where the first experiment compares '%s'; the noise of a channel is estimated over every experiment, which needs the same channels in the same order",
               obj->exp[e].name, exp_name, name);
  }
  PetscFunctionReturn(0);
}

/*
  The residuals at p, and with forward sensitivities their Jacobian drho/dp (at->m x n, row-major, allocated) from the
  same solve, the first at p (it records the steps): *done false for a method without them, whose solve still gives
  the residuals
*/
static PetscErrorCode MbsConfidenceForwardSensitivities_Private(MbsObjective obj, PetscInt e, const PetscReal p[], MbsResidualSet *at, PetscReal **jac, PetscBool *done, PetscBool *ok)
{
  PetscInt   m;
  PetscReal *rho = NULL; /* rho_i = sqrt(w_i) r_i */

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveSetValues(obj, p));
  PetscCall(MbsExperimentLeastSquares(obj, e, PETSC_TRUE, &m, &rho, jac, done, at, ok));
  PetscCall(PetscFree(rho));
  PetscFunctionReturn(0);
}

/*
  One experiment's contribution, in values[], per channel c: H_c (n x n), G_c (n x n), J_c, tr(D_c^T W D_c), residuals,
  measured values used. dr/dp by forward sensitivities where the method has them on its quadrature nodes, unless
  differences, else by central differences (*forward says which); every solve takes the steps of the first solve at
  p, which with forward sensitivities is the only one.
*/
#define MBS_CONFIDENCE_CHANNEL_VALUES(n) (2 * (n) * (n) + 4)
static PetscErrorCode MbsExperimentConfidence_Private(MbsObjective obj, PetscInt e, const PetscReal p[], const PetscReal scale[], PetscReal step, PetscBool differences, PetscReal values[], PetscBool *forward, PetscBool *ok)
{
  PetscInt       n = obj->nid, nv = MBS_CONFIDENCE_CHANNEL_VALUES(n);
  MbsResidualSet at  = {NULL, 0, 0, NULL, NULL, NULL, NULL, NULL};
  MbsResidualSet fwd = at, bwd = at;
  PetscReal     *x, *S, *V, *jac = NULL, weight_max = 0, *weight; /* weight: of each measured value in J, sum_i w_i (dr_i/dd_l)^2 */
  PetscInt      *data_channel;

  PetscFunctionBeginUser;
  *forward = PETSC_FALSE;
  PetscCall(MbsConfidenceChannelsMatch_Private(obj, e));
  PetscCall(PetscMalloc1(n, &x));
  PetscCall(PetscArraycpy(x, p, n));
  at.cost = obj->exp[e].cost;
  if (differences) PetscCall(MbsExperimentResiduals_Private(obj, e, x, &at, ok)); /* records the steps */
  else PetscCall(MbsConfidenceForwardSensitivities_Private(obj, e, p, &at, &jac, forward, ok));
  if (!*ok) {
    PetscCall(MbsResidualSetReset(&at));
    PetscCall(PetscFree(jac));
    PetscCall(PetscFree(x));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscCalloc4(at.m * n, &S, at.ndata * n, &V, at.ndata, &weight, at.ndata, &data_channel));
  for (PetscInt i = 0; i < at.m && *forward; i++)
    for (PetscInt j = 0; j < n; j++) S[i * n + j] = at.w[i] > 0 ? jac[i * n + j] / PetscSqrtReal(at.w[i]) : 0;
  PetscCall(PetscFree(jac));
  for (PetscInt j = 0; j < n && *ok && !*forward; j++) {
    const MbsParameterInfo *info = &obj->model->param_info[obj->id[j]];
    PetscReal               h    = step * scale[j], hi, lo;
    PetscBool               ok_fwd, ok_bwd;

    /* a result on its bound (where the model refuses to go beyond): the difference on the side within */
    hi = PetscMin(p[j] + h, info->upper);
    lo = PetscMax(p[j] - h, info->lower);
    PetscCheck(hi > lo, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Confidence: parameter %s has the bounds [%g, %g], no room for a difference at %g", info->name, (double)info->lower, (double)info->upper, (double)p[j]);
    x[j] = hi;
    PetscCall(MbsExperimentResiduals_Private(obj, e, x, &fwd, &ok_fwd));
    x[j] = lo;
    PetscCall(MbsExperimentResiduals_Private(obj, e, x, &bwd, &ok_bwd));
    x[j] = p[j];
    *ok  = (PetscBool)(ok_fwd && ok_bwd);
    if (!*ok) break;
    PetscCheck(fwd.m == at.m && bwd.m == at.m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Confidence of %s: %" PetscInt_FMT " residuals at p, %" PetscInt_FMT " and %" PetscInt_FMT " at p +- h on the same steps", obj->exp[e].name, at.m, fwd.m, bwd.m);
    for (PetscInt i = 0; i < at.m; i++) S[i * n + j] = (fwd.r[i] - bwd.r[i]) / (hi - lo);
  }
  for (PetscInt i = 0; i < at.m; i++) {
    const PetscReal *s    = &S[i * n];
    PetscReal       *H    = &values[at.channel[i] * nv];
    PetscReal       *tail = H + 2 * n * n;

    for (PetscInt j = 0; j < n; j++)
      for (PetscInt k = 0; k < n; k++) H[j * n + k] += at.w[i] * s[j] * s[k];
    for (PetscInt a = 0; a < 2; a++) {
      PetscInt  l = at.data[2 * i + a];
      PetscReal d = at.dr_dd[2 * i + a];

      if (d == 0) continue;
      weight[l] += at.w[i] * d * d;
      tail[1] += at.w[i] * d * d;
      data_channel[l] = at.channel[i]; /* a channel's values are its own (MbsCostResiduals) */
      for (PetscInt j = 0; j < n; j++) V[l * n + j] += d * at.w[i] * s[j];
    }
    tail[0] += at.w[i] * at.r[i] * at.r[i];
    tail[2] += 1;
  }
  for (PetscInt l = 0; l < at.ndata; l++) weight_max = PetscMax(weight_max, weight[l]);
  for (PetscInt l = 0; l < at.ndata; l++) {
    PetscReal *G    = &values[data_channel[l] * nv + n * n];
    PetscReal *tail = G + n * n;

    for (PetscInt j = 0; j < n; j++)
      for (PetscInt k = 0; k < n; k++) G[j * n + k] += V[l * n + j] * V[l * n + k];
    /* a degree of freedom is a value that carries weight: an interpolation weight of 1e-13 (a node a rounding error
       off a sample) leaves its neighbour a weight of 1e-26, which must not count as one */
    tail[3] += weight[l] > 1e-8 * weight_max;
  }
  PetscCall(PetscFree4(S, V, weight, data_channel));
  PetscCall(MbsResidualSetReset(&at));
  PetscCall(MbsResidualSetReset(&fwd));
  PetscCall(MbsResidualSetReset(&bwd));
  PetscCall(PetscFree(x));
  PetscFunctionReturn(0);
}

/* Inverse of a symmetric positive definite n x n matrix (in place); *ok false when it is not */
static PetscErrorCode MbsInvertSPD_Private(PetscInt n, PetscReal a[], PetscBool *ok)
{
  PetscBLASInt bn, info;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("U", &bn, a, &bn, &info));
  *ok = (PetscBool)(info == 0);
  if (!*ok) PetscFunctionReturn(0);
  PetscCallBLAS("LAPACKpotri", LAPACKpotri_("U", &bn, a, &bn, &info));
  *ok = (PetscBool)(info == 0);
  for (PetscInt j = 0; j < n; j++) /* column-major upper = row-major lower: mirror */
    for (PetscInt k = 0; k < j; k++) a[k * n + j] = a[j * n + k];
  PetscFunctionReturn(0);
}

/* Condition number of the Gauss-Newton matrix in relative parameters, diag(s) H diag(s), s the parameters' sizes */
static PetscErrorCode MbsRelativeCondition_Private(PetscInt n, const PetscReal H[], const PetscReal s[], PetscReal *condition)
{
  PetscBLASInt bn, lwork, info;
  PetscReal   *a, *eig, *work;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(3 * n, &lwork));
  PetscCall(PetscMalloc3(n * n, &a, n, &eig, 3 * n, &work));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt k = 0; k < n; k++) a[j * n + k] = s[j] * H[j * n + k] * s[k];
  PetscCallBLAS("LAPACKsyev", LAPACKsyev_("N", "U", &bn, a, &bn, eig, work, &lwork, &info));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK dsyev failed (info %d)", (int)info);
  *condition = eig[0] > 0 ? eig[n - 1] / eig[0] : PETSC_INFINITY;
  PetscCall(PetscFree3(a, eig, work));
  PetscFunctionReturn(0);
}

/* The 0.975 quantile of Student's t with nu degrees of freedom: exact for nu = 1, 2, the Cornish-Fisher expansion
   (error below 1e-4 for nu >= 3) otherwise */
static PetscReal MbsStudentQuantile975(PetscInt nu)
{
  const PetscReal z = 1.959963984540054, z2 = z * z, v = (PetscReal)nu;

  if (nu == 1) return 12.706204736174703;
  if (nu == 2) return 4.302652729749464;
  return z + z * (z2 + 1) / (4 * v) + z * ((5 * z2 + 16) * z2 + 3) / (96 * v * v) + z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / (384 * v * v * v) + z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / (92160 * v * v * v * v);
}

/* Solves the n x n system a x = b in place (b becomes x); *ok false when a is singular */
static PetscErrorCode MbsSolveDense_Private(PetscInt n, PetscReal a[], PetscReal b[], PetscBool *ok)
{
  PetscBLASInt bn, one = 1, info, *pivots;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscMalloc1(n, &pivots));
  PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bn, &one, a, &bn, pivots, b, &bn, &info));
  PetscCall(PetscFree(pivots));
  *ok = (PetscBool)(info == 0);
  PetscFunctionReturn(0);
}

/*
  Each channel's sigma_c: given (conf->given[c]) or estimated from E J_c (the file's head), the estimated ones solving
  their rows of the system with the given ones moved to the right-hand side. B[k] = H^{-1} G_k H^{-1}.
*/
static PetscErrorCode MbsConfidenceNoise_Private(MbsConfidence *conf, const PetscReal values[], const PetscReal Hinv[], const PetscReal B[])
{
  PetscInt   n = conf->n, C = conf->nchannel, nv = MBS_CONFIDENCE_CHANNEL_VALUES(n), nu = 0;
  PetscReal *A, *rhs;
  PetscInt  *unknown;
  PetscBool  ok = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc3(C * C, &A, C, &rhs, C, &unknown));
  for (PetscInt c = 0; c < C; c++)
    if (!conf->given[c]) unknown[nu++] = c;
  for (PetscInt r = 0; r < nu; r++) { /* row r: E J_c = ..., c = unknown[r]; column-major for LAPACK */
    PetscInt         c  = unknown[r];
    const PetscReal *Hc = &values[c * nv], *Gc = Hc + n * n, *tail = Gc + n * n;
    PetscReal        trace_hg = 0;

    for (PetscInt j = 0; j < n; j++)
      for (PetscInt l = 0; l < n; l++) trace_hg += Hinv[j * n + l] * Gc[l * n + j];
    rhs[r] = tail[0];
    for (PetscInt k = 0; k < C; k++) {
      PetscReal coefficient = k == c ? tail[1] - 2 * trace_hg : 0;
      PetscInt  col         = 0;

      for (PetscInt i = 0; i < n * n; i++) coefficient += Hc[i] * B[k * n * n + i]; /* tr(H_c B_k), both symmetric */
      if (conf->given[k]) {
        rhs[r] -= coefficient * conf->sigma[k] * conf->sigma[k];
        continue;
      }
      while (unknown[col] != k) col++;
      A[col * nu + r] = coefficient;
    }
  }
  if (nu) PetscCall(MbsSolveDense_Private(nu, A, rhs, &ok));
  for (PetscInt r = 0; r < nu && ok; r++) {
    PetscInt c = unknown[r];

    if (!(rhs[r] > 0)) {
      PetscCall(PetscSNPrintf(conf->reason, sizeof(conf->reason), "the residual of %s%s leaves no positive estimate of its noise (sigma^2 = %g): give it with -noise_sigma or -channel_noise", conf->channel_name[c][0] ? "channel " : "",
                              conf->channel_name[c][0] ? conf->channel_name[c] : "the measurement", (double)rhs[r]));
      ok = PETSC_FALSE;
      break;
    }
    conf->sigma[c] = PetscSqrtReal(rhs[r]);
  }
  if (!ok && !conf->reason[0]) PetscCall(PetscSNPrintf(conf->reason, sizeof(conf->reason), "the noise of the %" PetscInt_FMT " channels cannot be told apart from their residuals: give it with -noise_sigma or -channel_noise", nu));
  PetscCall(PetscFree3(A, rhs, unknown));
  PetscFunctionReturn(0);
}

/* Covariance, intervals and Fisher information from the channels' H_c, G_c, J_c, tr(D_c^T W D_c) (values[], summed
   over the experiments); conf->reason when impossible */
static PetscErrorCode MbsConfidenceStatistics_Private(MbsConfidence *conf, const PetscReal p[], const PetscReal values[])
{
  PetscInt   n = conf->n, C = conf->nchannel, nv = MBS_CONFIDENCE_CHANNEL_VALUES(n);
  PetscReal *H = conf->gauss_newton, *Hinv, *HG, *B;
  PetscBool  ok, all_given = PETSC_TRUE;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < C; c++) all_given = (PetscBool)(all_given && conf->given[c]);
  PetscCall(MbsRelativeCondition_Private(n, H, conf->scale, &conf->condition));
  PetscCall(PetscMalloc3(n * n, &Hinv, n * n, &HG, C * n * n, &B));
  PetscCall(PetscArraycpy(Hinv, H, n * n));
  PetscCall(MbsInvertSPD_Private(n, Hinv, &ok));
  if (!ok || conf->condition > 1e14) {
    PetscCall(PetscSNPrintf(conf->reason, sizeof(conf->reason), "the Gauss-Newton matrix is singular (condition number %g in relative parameters): the measurement does not determine these parameters separately", (double)conf->condition));
    PetscCall(PetscFree3(Hinv, HG, B));
    PetscFunctionReturn(0);
  }
  for (PetscInt c = 0; c < C; c++) { /* B_c = H^{-1} G_c H^{-1} */
    const PetscReal *Gc = &values[c * nv + n * n];
    PetscReal       *Bc = &B[c * n * n];

    PetscCall(PetscArrayzero(HG, n * n));
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt k = 0; k < n; k++)
        for (PetscInt l = 0; l < n; l++) HG[j * n + k] += Hinv[j * n + l] * Gc[l * n + k];
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt k = 0; k < n; k++) {
        Bc[j * n + k] = 0;
        for (PetscInt l = 0; l < n; l++) Bc[j * n + k] += HG[j * n + l] * Hinv[l * n + k];
      }
  }
  if (!all_given && conf->dof <= 0)
    PetscCall(PetscSNPrintf(conf->reason, sizeof(conf->reason), "%" PetscInt_FMT " measured values for %" PetscInt_FMT " parameters leave no degree of freedom to estimate the noise: give -noise_sigma", conf->ndata, n));
  else PetscCall(MbsConfidenceNoise_Private(conf, values, Hinv, B));
  if (conf->reason[0]) {
    PetscCall(PetscFree3(Hinv, HG, B));
    PetscFunctionReturn(0);
  }
  conf->quantile = all_given ? 1.959963984540054 : MbsStudentQuantile975(conf->dof);
  PetscCall(PetscArrayzero(conf->covariance, n * n));
  for (PetscInt c = 0; c < C; c++)
    for (PetscInt i = 0; i < n * n; i++) conf->covariance[i] += conf->sigma[c] * conf->sigma[c] * B[c * n * n + i];
  PetscCall(PetscFree3(Hinv, HG, B));
  for (PetscInt j = 0; j < n; j++) {
    conf->std[j]   = PetscSqrtReal(conf->covariance[j * n + j]);
    conf->lower[j] = p[j] - conf->quantile * conf->std[j];
    conf->upper[j] = p[j] + conf->quantile * conf->std[j];
  }
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt k = 0; k < n; k++) conf->correlation[j * n + k] = conf->covariance[j * n + k] / (conf->std[j] * conf->std[k]);
  PetscCall(PetscArraycpy(conf->fisher, conf->covariance, n * n));
  PetscCall(MbsInvertSPD_Private(n, conf->fisher, &ok));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The covariance of a regular Gauss-Newton matrix is not positive definite");
  conf->valid = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* sigma[c] of the channels that channel_noise (-channel_noise NAME:sigma,...) names, among the cost's channels */
static PetscErrorCode MbsConfidenceGivenNoise_Private(MbsObjective obj, const char channel_noise[], const char *const names[], PetscReal sigma[])
{
  PetscInt nchannel;

  PetscFunctionBeginUser;
  PetscCall(MbsCostGetNumChannels(obj->cost, &nchannel));
  PetscCheck(!channel_noise[0] || names[0][0], obj->comm, PETSC_ERR_ARG_WRONG, "-channel_noise %s: the measurement file (-measurement) has one channel (its tables at the root), not named channels; give its noise with -noise_sigma", channel_noise);
  PetscCall(MbsNamedValues(obj->comm, "-channel_noise", channel_noise, "channel", "the measurement that the cost compares (-channels)", nchannel, names, sigma));
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveCheckChannelNoise - Fails, before any solve, on a -channel_noise list (NAME:sigma,...) that does not fit
  the channels the cost compares. Collective.
@*/
PetscErrorCode MbsObjectiveCheckChannelNoise(MbsObjective obj, const char channel_noise[])
{
  PetscInt     nchannel;
  PetscReal   *sigma;
  const char **names, *unit;

  PetscFunctionBeginUser;
  PetscCall(MbsCostGetNumChannels(obj->cost, &nchannel));
  PetscCall(PetscMalloc2(nchannel, &sigma, nchannel, &names));
  for (PetscInt c = 0; c < nchannel; c++) PetscCall(MbsCostGetChannel(obj->cost, c, &names[c], &unit));
  MbsCallUndo(MbsConfidenceGivenNoise_Private(obj, channel_noise, names, sigma), PetscFree2(sigma, names));
  PetscCall(PetscFree2(sigma, names));
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveConfidence - Standard deviations, correlations and 95 % intervals of the identified parameters p (Gauss-
  Newton, see the file's head). sigma > 0 is the noise of each measured value of every channel, channel_noise
  ("NAME:sigma,...", may be empty) that of the channels it names; a channel with neither has its noise estimated from
  the residual. dr/dp comes from forward sensitivities where the method allows and differences is false, else from
  central differences with the relative step step. Each parameter is measured in its size (the steps, the condition
  number in relative parameters, the relative std): |p_j|, or size[j] (> 0, identify's scaling size) where p_j is
  below 1e-3 of it, so that a parameter identified at 0 (a position, a gravity component) is not called undetermined.
  When the statistics cannot be formed (singular Gauss-Newton matrix, no degree of freedom left) conf->valid is false
  and conf->reason says why. Collective.
@*/
PetscErrorCode MbsObjectiveConfidence(MbsObjective obj, const PetscReal p[], const PetscReal size[], PetscReal sigma, const char channel_noise[], PetscBool differences, PetscReal step, MbsConfidence *conf)
{
  PetscInt    n = obj->nid, C, nv;
  PetscMPIInt rank;
  PetscReal  *local, *all, *values;
  int         ok_local = 1, ok_all, forward_local = 1, forward_all;

  PetscFunctionBeginUser;
  PetscCall(MbsConfidenceReset(conf));
  PetscCallMPI(MPI_Comm_rank(obj->comm, &rank));
  PetscCall(MbsCostGetNumChannels(obj->cost, &C));
  nv             = C * MBS_CONFIDENCE_CHANNEL_VALUES(n);
  conf->n        = n;
  conf->nchannel = C;
  PetscCall(PetscMalloc4(n, &conf->estimate, n, &conf->std, n, &conf->lower, n, &conf->upper));
  PetscCall(PetscMalloc1(n, &conf->scale));
  for (PetscInt j = 0; j < n; j++) conf->scale[j] = PetscAbsReal(p[j]) < 1e-3 * size[j] ? size[j] : PetscAbsReal(p[j]);
  PetscCall(PetscMalloc4(n * n, &conf->gauss_newton, n * n, &conf->covariance, n * n, &conf->correlation, n * n, &conf->fisher));
  PetscCall(PetscMalloc4(C, &conf->sigma, C, &conf->given, C, &conf->channel_name, C, &conf->channel_unit));
  for (PetscInt c = 0; c < C; c++) {
    PetscCall(MbsCostGetChannel(obj->cost, c, &conf->channel_name[c], &conf->channel_unit[c]));
    conf->sigma[c] = sigma;
  }
  PetscCall(MbsConfidenceGivenNoise_Private(obj, channel_noise, conf->channel_name, conf->sigma));
  for (PetscInt c = 0; c < C; c++) conf->given[c] = (PetscBool)(conf->sigma[c] > 0);
  PetscCall(PetscArraycpy(conf->estimate, p, n));
  conf->step     = step;
  conf->noise_of = obj->cost->noise_of;

  PetscCall(PetscCalloc3(obj->nexp * nv, &local, obj->nexp * nv, &all, nv, &values));
  PetscCall(MbsObjectiveFreezeSteps(obj, PETSC_TRUE));
  for (PetscInt e = 0; e < obj->nexp && ok_local; e++) {
    PetscBool ok = PETSC_TRUE, forward = PETSC_TRUE;

    if (obj->exp[e].rank == rank) PetscCall(MbsExperimentConfidence_Private(obj, e, p, conf->scale, step, differences, &local[e * nv], &forward, &ok));
    ok_local = ok;
    forward_local &= forward;
  }
  PetscCall(MbsObjectiveFreezeSteps(obj, PETSC_FALSE));
  PetscCall(MbsObjectiveSetValues(obj, p));
  PetscCallMPI(MPI_Allreduce(&ok_local, &ok_all, 1, MPI_INT, MPI_MIN, obj->comm));
  PetscCallMPI(MPI_Allreduce(&forward_local, &forward_all, 1, MPI_INT, MPI_MIN, obj->comm));
  conf->forward = (PetscBool)forward_all;
  conf->solves  = conf->forward ? 1 : 1 + 2 * n;
  /* one non-zero contribution per entry: the sum is exact whatever the reduction order */
  PetscCall(MPIU_Allreduce(local, all, obj->nexp * nv, MPIU_REAL, MPIU_SUM, obj->comm));
  for (PetscInt e = 0; e < obj->nexp; e++) /* in experiment order */
    for (PetscInt i = 0; i < nv; i++) values[i] += all[e * nv + i];
  PetscCall(PetscArrayzero(conf->gauss_newton, n * n));
  for (PetscInt c = 0; c < C; c++) {
    const PetscReal *Hc = &values[c * MBS_CONFIDENCE_CHANNEL_VALUES(n)], *tail = Hc + 2 * n * n;

    for (PetscInt i = 0; i < n * n; i++) conf->gauss_newton[i] += Hc[i];
    conf->J += tail[0];
    conf->nresidual += (PetscInt)tail[2];
    conf->ndata += (PetscInt)tail[3];
  }
  conf->dof = conf->ndata - n;
  if (ok_all) PetscCall(MbsConfidenceStatistics_Private(conf, p, values));
  else if (conf->forward) PetscCall(PetscSNPrintf(conf->reason, sizeof(conf->reason), "a forward solve failed at the identified parameters"));
  else PetscCall(PetscSNPrintf(conf->reason, sizeof(conf->reason), "a forward solve failed at the identified parameters or a relative step of %g (-confidence_step) from them", (double)step));
  PetscCall(PetscFree3(local, all, values));
  PetscFunctionReturn(0);
}

/*@C
  MbsConfidenceView - The noise level, each parameter's standard deviation and 95 % interval, and the correlations.
  Collective.
@*/
PetscErrorCode MbsConfidenceView(MbsObjective obj, const MbsConfidence *conf)
{
  MPI_Comm  comm      = obj->comm;
  PetscInt  n         = conf->n;
  PetscBool all_given = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "Confidence at the identified parameters (Gauss-Newton, %" PetscInt_FMT " forward %s per experiment, %" PetscInt_FMT " residuals on %" PetscInt_FMT " measured values):\n", conf->solves, conf->solves == 1 ? "solve" : "solves",
                        conf->nresidual, conf->ndata));
  if (!conf->valid) {
    PetscCall(PetscPrintf(comm, "  not computed: %s\n", conf->reason));
    PetscFunctionReturn(0);
  }
  for (PetscInt c = 0; c < conf->nchannel; c++) {
    const char *name = conf->channel_name[c];

    if (conf->given[c])
      PetscCall(PetscPrintf(comm, "  noise: sigma = %.4e %s of %s%s%s (%s)", (double)conf->sigma[c], conf->channel_unit[c], conf->noise_of, name[0] ? " of channel " : "", name, name[0] ? "-channel_noise or -noise_sigma" : "-noise_sigma"));
    else PetscCall(PetscPrintf(comm, "  noise: sigma = %.4e %s of %s%s%s, estimated from the residual", (double)conf->sigma[c], conf->channel_unit[c], conf->noise_of, name[0] ? " of channel " : "", name));
    if (c < conf->nchannel - 1) PetscCall(PetscPrintf(comm, "\n"));
  }
  for (PetscInt c = 0; c < conf->nchannel; c++) all_given = (PetscBool)(all_given && conf->given[c]);
  if (all_given) PetscCall(PetscPrintf(comm, "; normal quantile %.4f\n", (double)conf->quantile));
  else PetscCall(PetscPrintf(comm, " (J = %.6e, %" PetscInt_FMT " degrees of freedom; Student t quantile %.4f)\n", (double)conf->J, conf->dof, (double)conf->quantile));
  for (PetscInt j = 0; j < n; j++) {
    const MbsParameterInfo *info     = &obj->model->param_info[obj->id[j]];
    PetscBool               at_bound = (PetscBool)(PetscAbsReal(conf->estimate[j] - info->lower) <= 1e-6 * PetscAbsReal(info->lower) || PetscAbsReal(conf->estimate[j] - info->upper) <= 1e-6 * PetscAbsReal(info->upper));

    PetscCall(PetscPrintf(comm, "  %-6s %-14.10g std %-11.4e (%.3g %%)  95 %% interval [%.8g, %.8g] %s%s\n", info->name, (double)conf->estimate[j], (double)conf->std[j], (double)(100 * conf->std[j] / conf->scale[j]), (double)conf->lower[j],
                          (double)conf->upper[j], info->unit, at_bound ? "  (at its bound: the interval assumes an interior minimum)" : ""));
  }
  PetscCall(PetscPrintf(comm, "  correlation (condition number of the Gauss-Newton matrix in relative parameters %.3e):\n        ", (double)conf->condition));
  for (PetscInt k = 0; k < n; k++) PetscCall(PetscPrintf(comm, " %8s", obj->model->param_info[obj->id[k]].name));
  PetscCall(PetscPrintf(comm, "\n"));
  for (PetscInt j = 0; j < n; j++) {
    PetscCall(PetscPrintf(comm, "  %-6s", obj->model->param_info[obj->id[j]].name));
    for (PetscInt k = 0; k < n; k++) PetscCall(PetscPrintf(comm, " %+8.4f", (double)conf->correlation[j * n + k]));
    PetscCall(PetscPrintf(comm, "\n"));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsConfidenceWrite - /confidence of a result file (rank 0's writer). Not collective.
@*/
PetscErrorCode MbsConfidenceWrite(MbsH5Writer *writer, const MbsConfidence *conf)
{
  PetscInt n = conf->n, dims[2] = {conf->n, conf->n};
  char     text[128];

  PetscFunctionBeginUser;
  if (!n) PetscFunctionReturn(0);
  PetscCall(MbsH5WriteReals(writer, "/confidence/estimate", 1, &n, conf->estimate, "see /parameters/unit"));
  PetscCall(MbsH5WriteReals(writer, "/confidence/gauss_newton", 2, dims, conf->gauss_newton, "cost per product of /parameters/unit"));
  if (conf->valid) {
    PetscCall(MbsH5WriteReals(writer, "/confidence/std", 1, &n, conf->std, "see /parameters/unit"));
    PetscCall(MbsH5WriteReals(writer, "/confidence/lower_95", 1, &n, conf->lower, "see /parameters/unit"));
    PetscCall(MbsH5WriteReals(writer, "/confidence/upper_95", 1, &n, conf->upper, "see /parameters/unit"));
    PetscCall(MbsH5WriteReals(writer, "/confidence/correlation", 2, dims, conf->correlation, "1"));
    PetscCall(MbsH5WriteReals(writer, "/confidence/covariance", 2, dims, conf->covariance, "product of /parameters/unit"));
    PetscCall(MbsH5WriteReals(writer, "/confidence/fisher", 2, dims, conf->fisher, "inverse of /confidence/covariance"));
    for (PetscInt c = 0; c < conf->nchannel; c++) {
      const char *source = conf->given[c] ? (conf->channel_name[c][0] ? "-channel_noise or -noise_sigma" : "-noise_sigma") : "estimated from the residual";
      char        path[128];
      PetscInt    one = 1;

      if (!conf->channel_name[c][0]) { /* a one-channel file: on /confidence */
        PetscCall(PetscSNPrintf(text, sizeof(text), "%.10e", (double)conf->sigma[c]));
        PetscCall(MbsH5WriteAttribute(writer, "/confidence", "sigma", text));
        PetscCall(MbsH5WriteAttribute(writer, "/confidence", "sigma_source", source));
        PetscCall(MbsH5WriteAttribute(writer, "/confidence", "sigma_of", conf->noise_of));
        continue;
      }
      PetscCall(PetscSNPrintf(path, sizeof(path), "/confidence/channels/%s/sigma", conf->channel_name[c]));
      PetscCall(MbsH5WriteReals(writer, path, 1, &one, &conf->sigma[c], conf->channel_unit[c]));
      PetscCall(MbsH5WriteAttribute(writer, path, "source", source));
      PetscCall(MbsH5WriteAttribute(writer, path, "of", conf->noise_of));
    }
    PetscCall(PetscSNPrintf(text, sizeof(text), "%.10f", (double)conf->quantile));
    PetscCall(MbsH5WriteAttribute(writer, "/confidence", "quantile", text));
  } else PetscCall(MbsH5WriteAttribute(writer, "/confidence", "not_computed", conf->reason));
  PetscCall(PetscSNPrintf(text, sizeof(text), "%" PetscInt_FMT, conf->dof));
  PetscCall(MbsH5WriteAttribute(writer, "/confidence", "degrees_of_freedom", text));
  PetscCall(PetscSNPrintf(text, sizeof(text), "%.6e", (double)conf->condition));
  PetscCall(MbsH5WriteAttribute(writer, "/confidence", "condition", text));
  if (conf->forward) PetscCall(PetscSNPrintf(text, sizeof(text), "Gauss-Newton; dr/dp by forward sensitivities, on the steps of the solve at the estimate"));
  else PetscCall(PetscSNPrintf(text, sizeof(text), "Gauss-Newton; dr/dp by central differences, relative step %g, on frozen steps", (double)conf->step));
  PetscCall(MbsH5WriteAttribute(writer, "/confidence", "method", text));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsConfidenceReset(MbsConfidence *conf)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree4(conf->estimate, conf->std, conf->lower, conf->upper));
  PetscCall(PetscFree(conf->scale));
  PetscCall(PetscFree4(conf->gauss_newton, conf->covariance, conf->correlation, conf->fisher));
  PetscCall(PetscFree4(conf->sigma, conf->given, conf->channel_name, conf->channel_unit));
  PetscCall(PetscMemzero(conf, sizeof(*conf)));
  PetscFunctionReturn(0);
}
