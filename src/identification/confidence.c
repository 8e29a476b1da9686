/*
  How sure is an identified parameter set: Gauss-Newton statistics at the identified parameters p.

  Each experiment's cost is J_e = sum_i w_i r_i^2 over its residuals (MbsCostResiduals). S = dr/dp comes from central
  differences of forward solves on the steps of the solve at p (frozen steps: the derivative of the discrete residuals,
  1 + 2 n solves per experiment, for every integrator, cost and model), and H = S^T W S is J's Gauss-Newton Hessian / 2.

  The noise sits on the measured values d_l (signal samples or amplitudes, the cost says which): independent, with one
  standard deviation sigma; the residuals move by D dd (the cost's data map). p minimises J, so to first order

    dp = -H^{-1} S^T W D dd,    Cov(p) = sigma^2 H^{-1} G H^{-1},    G = (D^T W S)^T (D^T W S),

  which is the textbook sigma^2 (S^T S)^{-1} when every residual is one measured value with unit weight. Without
  -noise_sigma, sigma^2 = J(p) / (tr(D^T W D) - tr(H^{-1} G)), the expected J at the minimum when the model is right
  (a model error makes sigma, and the intervals, larger), with nu = (measured values in J) - n degrees of freedom and
  Student's t quantile for the 95 % intervals. The Fisher information reported is Cov^{-1}.

  Experiments are independent: their H, G and J are computed by their ranks and summed in experiment order, so the
  numbers do not depend on the number of ranks.
*/
#include "identification/identificationimpl.h"
#include <petscblaslapack.h>

/* The residuals of one forward solve */
typedef struct {
  MbsCost    cost;
  PetscInt   m, ndata;
  PetscReal *r, *w, *dr_dd;
  PetscInt  *data;
} MbsResidualSet;

static PetscErrorCode MbsResidualSetPrepare(MbsModel model, const MbsSignal *signal, void *ctx, PetscBool *usable)
{
  MbsResidualSet *set = (MbsResidualSet *)ctx;
  PetscReal       J;

  PetscFunctionBeginUser;
  PetscCall(MbsCostSignalUsable(set->cost, signal, usable));
  if (!*usable) PetscFunctionReturn(0);
  PetscCall(MbsCostEvaluate(set->cost, signal, &J));
  PetscCall(PetscFree4(set->r, set->w, set->data, set->dr_dd));
  PetscCall(MbsCostResiduals(set->cost, signal, &set->m, &set->ndata, NULL, NULL, NULL, NULL));
  PetscCall(PetscMalloc4(set->m, &set->r, set->m, &set->w, 2 * set->m, &set->data, 2 * set->m, &set->dr_dd));
  PetscCall(MbsCostResiduals(set->cost, signal, &set->m, &set->ndata, set->r, set->w, set->data, set->dr_dd));
  PetscFunctionReturn(0);
}

/* The residuals of an experiment at the objective's current values */
static PetscErrorCode MbsExperimentResiduals_Private(MbsObjective obj, PetscInt e, const PetscReal x[], MbsResidualSet *set, PetscBool *ok)
{
  MbsExperiment  *exp      = &obj->exp[e];
  MbsIntegralCost integral = {"the residuals", 1, PETSC_FALSE, NULL, NULL, MbsResidualSetPrepare, set, NULL, NULL, NULL};

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveSetValues(obj, x));
  set->cost = exp->cost;
  PetscCall(MbsExperimentOptionsPush(exp));
  PetscCall(MbsIntegralGradient(exp->model, &integral, 0, NULL, NULL, NULL, NULL, NULL, NULL, ok));
  PetscCall(MbsExperimentOptionsPop(exp));
  PetscFunctionReturn(0);
}

/*
  One experiment's contribution, in values[]: H (n x n), G (n x n), J, tr(D^T W D), residuals, measured values used.
  The solves at p +- h_j take the steps of the solve at p.
*/
#define MBS_CONFIDENCE_VALUES(n) (2 * (n) * (n) + 4)
static PetscErrorCode MbsExperimentConfidence_Private(MbsObjective obj, PetscInt e, const PetscReal p[], PetscReal step, PetscReal values[], PetscBool *ok)
{
  PetscInt       n   = obj->nid;
  MbsResidualSet at  = {NULL, 0, 0, NULL, NULL, NULL, NULL};
  MbsResidualSet fwd = at, bwd = at;
  PetscReal     *x, *S, *V, *H = values, *G = values + n * n, *tail = values + 2 * n * n;
  PetscReal     *weight, weight_max = 0; /* of each measured value in J: sum_i w_i (dr_i/dd_l)^2 */

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(values, MBS_CONFIDENCE_VALUES(n)));
  PetscCall(PetscMalloc1(n, &x));
  PetscCall(PetscArraycpy(x, p, n));
  PetscCall(MbsExperimentResiduals_Private(obj, e, x, &at, ok)); /* records the steps */
  if (!*ok) {
    PetscCall(PetscFree4(at.r, at.w, at.data, at.dr_dd));
    PetscCall(PetscFree(x));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscCalloc3(at.m * n, &S, at.ndata * n, &V, at.ndata, &weight));
  for (PetscInt j = 0; j < n; j++) {
    PetscReal h = step * (p[j] != 0 ? PetscAbsReal(p[j]) : 1);
    PetscBool ok_fwd, ok_bwd;

    x[j] = p[j] + h;
    PetscCall(MbsExperimentResiduals_Private(obj, e, x, &fwd, &ok_fwd));
    x[j] = p[j] - h;
    PetscCall(MbsExperimentResiduals_Private(obj, e, x, &bwd, &ok_bwd));
    x[j] = p[j];
    *ok  = (PetscBool)(ok_fwd && ok_bwd);
    if (!*ok) break;
    PetscCheck(fwd.m == at.m && bwd.m == at.m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Confidence of %s: %" PetscInt_FMT " residuals at p, %" PetscInt_FMT " and %" PetscInt_FMT " at p +- h on the same steps", obj->exp[e].name, at.m, fwd.m, bwd.m);
    for (PetscInt i = 0; i < at.m; i++) S[i * n + j] = (fwd.r[i] - bwd.r[i]) / (2 * h);
  }
  for (PetscInt i = 0; i < at.m; i++) {
    const PetscReal *s = &S[i * n];

    for (PetscInt j = 0; j < n; j++)
      for (PetscInt k = 0; k < n; k++) H[j * n + k] += at.w[i] * s[j] * s[k];
    for (PetscInt a = 0; a < 2; a++) {
      PetscInt  l = at.data[2 * i + a];
      PetscReal d = at.dr_dd[2 * i + a];

      if (d == 0) continue;
      weight[l] += at.w[i] * d * d;
      tail[1] += at.w[i] * d * d;
      for (PetscInt j = 0; j < n; j++) V[l * n + j] += d * at.w[i] * s[j];
    }
    tail[0] += at.w[i] * at.r[i] * at.r[i];
  }
  for (PetscInt l = 0; l < at.ndata; l++) weight_max = PetscMax(weight_max, weight[l]);
  for (PetscInt l = 0; l < at.ndata; l++) {
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt k = 0; k < n; k++) G[j * n + k] += V[l * n + j] * V[l * n + k];
    /* a degree of freedom is a value that carries weight: an interpolation weight of 1e-13 (a node a rounding error
       off a sample) leaves its neighbour a weight of 1e-26, which must not count as one */
    tail[3] += weight[l] > 1e-8 * weight_max;
  }
  tail[2] = at.m;
  PetscCall(PetscFree3(S, V, weight));
  PetscCall(PetscFree4(at.r, at.w, at.data, at.dr_dd));
  PetscCall(PetscFree4(fwd.r, fwd.w, fwd.data, fwd.dr_dd));
  PetscCall(PetscFree4(bwd.r, bwd.w, bwd.data, bwd.dr_dd));
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

/* Condition number of the Gauss-Newton matrix in relative parameters, diag(p) H diag(p) */
static PetscErrorCode MbsRelativeCondition_Private(PetscInt n, const PetscReal H[], const PetscReal p[], PetscReal *condition)
{
  PetscBLASInt bn, lwork, info;
  PetscReal   *a, *eig, *work;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(3 * n, &lwork));
  PetscCall(PetscMalloc3(n * n, &a, n, &eig, 3 * n, &work));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt k = 0; k < n; k++) a[j * n + k] = p[j] * H[j * n + k] * p[k];
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

/* Covariance, intervals and Fisher information from H, G and the sums J, tr(D^T W D); conf->reason when impossible */
static PetscErrorCode MbsConfidenceStatistics_Private(MbsConfidence *conf, const PetscReal p[], const PetscReal H[], const PetscReal G[], PetscReal trace_dwd, PetscReal sigma, PetscReal Hinv[], PetscReal HG[])
{
  PetscInt  n        = conf->n;
  PetscReal trace_hg = 0;
  PetscBool ok;

  PetscFunctionBeginUser;
  PetscCall(MbsRelativeCondition_Private(n, H, p, &conf->condition));
  PetscCall(PetscArraycpy(Hinv, H, n * n));
  PetscCall(MbsInvertSPD_Private(n, Hinv, &ok));
  if (!ok || conf->condition > 1e14) {
    PetscCall(PetscSNPrintf(conf->reason, sizeof(conf->reason), "the Gauss-Newton matrix is singular (condition number %g in relative parameters): the measurement does not determine these parameters separately", (double)conf->condition));
    PetscFunctionReturn(0);
  }
  for (PetscInt j = 0; j < n; j++) /* Cov / sigma^2 = H^{-1} G H^{-1} */
    for (PetscInt k = 0; k < n; k++)
      for (PetscInt l = 0; l < n; l++) HG[j * n + k] += Hinv[j * n + l] * G[l * n + k];
  for (PetscInt j = 0; j < n; j++) {
    trace_hg += HG[j * n + j];
    for (PetscInt k = 0; k < n; k++) {
      conf->covariance[j * n + k] = 0;
      for (PetscInt l = 0; l < n; l++) conf->covariance[j * n + k] += HG[j * n + l] * Hinv[l * n + k];
    }
  }
  if (conf->sigma_given) conf->sigma = sigma;
  else {
    if (conf->dof <= 0 || trace_dwd - trace_hg <= 0) {
      PetscCall(PetscSNPrintf(conf->reason, sizeof(conf->reason), "%" PetscInt_FMT " measured values for %" PetscInt_FMT " parameters leave no degree of freedom to estimate the noise: give -noise_sigma", conf->ndata, n));
      PetscFunctionReturn(0);
    }
    conf->sigma = PetscSqrtReal(conf->J / (trace_dwd - trace_hg));
  }
  conf->quantile = conf->sigma_given ? 1.959963984540054 : MbsStudentQuantile975(conf->dof);
  for (PetscInt i = 0; i < n * n; i++) conf->covariance[i] *= conf->sigma * conf->sigma;
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

/*@C
  MbsObjectiveConfidence - Standard deviations, correlations and 95 % intervals of the identified parameters p (Gauss-
  Newton, see the file's head). sigma > 0 is the noise of each measured value; 0 estimates it from the residual. step
  is the relative step of the central differences. When the statistics cannot be formed (singular Gauss-Newton matrix,
  no degree of freedom left) conf->valid is false and conf->reason says why. Collective.
@*/
PetscErrorCode MbsObjectiveConfidence(MbsObjective obj, const PetscReal p[], PetscReal sigma, PetscReal step, MbsConfidence *conf)
{
  PetscInt    n = obj->nid, nv = MBS_CONFIDENCE_VALUES(n);
  PetscMPIInt rank;
  PetscReal  *local, *all, *H, *G, *Hinv, *HG, sum[4] = {0, 0, 0, 0};
  int         ok_local = 1, ok_all;

  PetscFunctionBeginUser;
  PetscCall(MbsConfidenceReset(conf));
  PetscCallMPI(MPI_Comm_rank(obj->comm, &rank));
  conf->n = n;
  PetscCall(PetscMalloc4(n, &conf->estimate, n, &conf->std, n, &conf->lower, n, &conf->upper));
  PetscCall(PetscMalloc4(n * n, &conf->gauss_newton, n * n, &conf->covariance, n * n, &conf->correlation, n * n, &conf->fisher));
  PetscCall(PetscArraycpy(conf->estimate, p, n));
  conf->step        = step;
  conf->sigma_given = (PetscBool)(sigma > 0);
  conf->noise_of    = obj->cost->noise_of;
  conf->solves      = 1 + 2 * n;

  PetscCall(PetscCalloc2(obj->nexp * nv, &local, obj->nexp * nv, &all));
  PetscCall(MbsObjectiveFreezeSteps(obj, PETSC_TRUE));
  for (PetscInt e = 0; e < obj->nexp && ok_local; e++) {
    PetscBool ok = PETSC_TRUE;

    if (obj->exp[e].rank == rank) PetscCall(MbsExperimentConfidence_Private(obj, e, p, step, &local[e * nv], &ok));
    ok_local = ok;
  }
  PetscCall(MbsObjectiveFreezeSteps(obj, PETSC_FALSE));
  PetscCall(MbsObjectiveSetValues(obj, p));
  PetscCallMPI(MPI_Allreduce(&ok_local, &ok_all, 1, MPI_INT, MPI_MIN, obj->comm));
  /* one non-zero contribution per entry: the sum is exact whatever the reduction order */
  PetscCall(MPIU_Allreduce(local, all, obj->nexp * nv, MPIU_REAL, MPIU_SUM, obj->comm));
  H = conf->gauss_newton;
  PetscCall(PetscCalloc3(n * n, &G, n * n, &Hinv, n * n, &HG));
  PetscCall(PetscArrayzero(H, n * n));
  for (PetscInt e = 0; e < obj->nexp; e++) {
    for (PetscInt i = 0; i < n * n; i++) {
      H[i] += all[e * nv + i];
      G[i] += all[e * nv + n * n + i];
    }
    for (PetscInt i = 0; i < 4; i++) sum[i] += all[e * nv + 2 * n * n + i];
  }
  conf->J         = sum[0];
  conf->nresidual = (PetscInt)sum[2];
  conf->ndata     = (PetscInt)sum[3];
  conf->dof       = conf->ndata - n;
  if (ok_all) PetscCall(MbsConfidenceStatistics_Private(conf, p, H, G, sum[1], sigma, Hinv, HG));
  else PetscCall(PetscSNPrintf(conf->reason, sizeof(conf->reason), "a forward solve failed at the identified parameters or a relative step of %g (-confidence_step) from them", (double)step));
  PetscCall(PetscFree3(G, Hinv, HG));
  PetscCall(PetscFree2(local, all));
  PetscFunctionReturn(0);
}

/*@C
  MbsConfidenceView - The noise level, each parameter's standard deviation and 95 % interval, and the correlations.
  Collective.
@*/
PetscErrorCode MbsConfidenceView(MbsObjective obj, const MbsConfidence *conf)
{
  MPI_Comm comm = obj->comm;
  PetscInt n    = conf->n;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "Confidence at the identified parameters (Gauss-Newton, %" PetscInt_FMT " forward solves per experiment, %" PetscInt_FMT " residuals on %" PetscInt_FMT " measured values):\n", conf->solves, conf->nresidual, conf->ndata));
  if (!conf->valid) {
    PetscCall(PetscPrintf(comm, "  not computed: %s\n", conf->reason));
    PetscFunctionReturn(0);
  }
  if (conf->sigma_given) PetscCall(PetscPrintf(comm, "  noise: sigma = %.4e %s of %s (-noise_sigma); normal quantile %.4f\n", (double)conf->sigma, obj->model->output_unit, conf->noise_of, (double)conf->quantile));
  else
    PetscCall(PetscPrintf(comm, "  noise: sigma = %.4e %s of %s, estimated from the residual (J = %.6e, %" PetscInt_FMT " degrees of freedom; Student t quantile %.4f)\n", (double)conf->sigma, obj->model->output_unit, conf->noise_of, (double)conf->J,
                          conf->dof, (double)conf->quantile));
  for (PetscInt j = 0; j < n; j++) {
    const MbsParameterInfo *info     = &obj->model->param_info[obj->id[j]];
    PetscBool               at_bound = (PetscBool)(PetscAbsReal(conf->estimate[j] - info->lower) <= 1e-6 * PetscAbsReal(info->lower) || PetscAbsReal(conf->estimate[j] - info->upper) <= 1e-6 * PetscAbsReal(info->upper));

    PetscCall(PetscPrintf(comm, "  %-6s %-14.10g std %-11.4e (%.3g %%)  95 %% interval [%.8g, %.8g] %s%s\n", info->name, (double)conf->estimate[j], (double)conf->std[j], (double)(100 * conf->std[j] / PetscAbsReal(conf->estimate[j])), (double)conf->lower[j],
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
    PetscCall(PetscSNPrintf(text, sizeof(text), "%.10e", (double)conf->sigma));
    PetscCall(MbsH5WriteAttribute(writer, "/confidence", "sigma", text));
    PetscCall(MbsH5WriteAttribute(writer, "/confidence", "sigma_source", conf->sigma_given ? "-noise_sigma" : "estimated from the residual"));
    PetscCall(MbsH5WriteAttribute(writer, "/confidence", "sigma_of", conf->noise_of));
    PetscCall(PetscSNPrintf(text, sizeof(text), "%.10f", (double)conf->quantile));
    PetscCall(MbsH5WriteAttribute(writer, "/confidence", "quantile", text));
  } else PetscCall(MbsH5WriteAttribute(writer, "/confidence", "not_computed", conf->reason));
  PetscCall(PetscSNPrintf(text, sizeof(text), "%" PetscInt_FMT, conf->dof));
  PetscCall(MbsH5WriteAttribute(writer, "/confidence", "degrees_of_freedom", text));
  PetscCall(PetscSNPrintf(text, sizeof(text), "%.6e", (double)conf->condition));
  PetscCall(MbsH5WriteAttribute(writer, "/confidence", "condition", text));
  PetscCall(PetscSNPrintf(text, sizeof(text), "Gauss-Newton; dr/dp by central differences, relative step %g, on frozen steps", (double)conf->step));
  PetscCall(MbsH5WriteAttribute(writer, "/confidence", "method", text));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsConfidenceReset(MbsConfidence *conf)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree4(conf->estimate, conf->std, conf->lower, conf->upper));
  PetscCall(PetscFree4(conf->gauss_newton, conf->covariance, conf->correlation, conf->fisher));
  PetscCall(PetscMemzero(conf, sizeof(*conf)));
  PetscFunctionReturn(0);
}
