/*
  The identification error surface of an input (section 8 of oscillator2.md and cart_pendulum.md): measurements at
  t_i = t0 + i dt_s of the true model plus sigma n_i (the seeded standard-normal sequence of noise.c),

    E_RMS(b) = 1/2 sum_i (y~_i - y(t_i; b))^2,
    H = sum_i S_i^T S_i (Gauss-Newton, S_i = dy/db at t_i),   d2E/db2 = H - sum_i (y~_i - y_i) d2y_i/db2 (exact),

  the second derivatives of y by central differences of the sensitivities, d2y/db_j db_l ~ (S_j(b + h e_l) -
  S_j(b - h e_l))/2h, h = 1e-4 |b_l| (truncation ~1e-8 relative). The minimiser b^ by Newton's method from the
  truth, until |db| < 1e-10 |b|. Everything runs on the sensitivity-extended system with fixed steps that fall on the
  sample times.
*/
#include "identification/identificationimpl.h"

PetscErrorCode MbsDesignErrorSettingsDefault(MbsDesign d, MbsDesignErrorSettings *s)
{
  const MbsDesignSpec *spec;
  const PetscReal     *p;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetDesignSpec(d->base, &spec));
  PetscCall(MbsModelGetParametersRead(d->base, &p));
  PetscCall(PetscMemzero(s, sizeof(*s)));
  s->sample_dt = spec->sample_dt > 0 ? spec->sample_dt : (d->base->tf - d->base->t0) / 1000;
  s->nnoise    = spec->nnoise > 0 ? spec->nnoise : 1;
  PetscCall(PetscArraycpy(s->noise, spec->noise, s->nnoise));
  s->seed = 12345;
  PetscCall(PetscArraycpy(s->grid, spec->grid, 3 * PetscMin(d->nb, 2)));
  for (PetscInt j = 0; j < d->nb && j < 2; j++)
    if (s->grid[3 * j + 2] < 1) { /* no grid in the spec: +-10 % in 11 points (a joint's point may be negative) */
      PetscReal b = p[d->b[j]];

      s->grid[3 * j]     = PetscMin(0.9 * b, 1.1 * b);
      s->grid[3 * j + 1] = PetscMax(0.9 * b, 1.1 * b);
      s->grid[3 * j + 2] = 11;
    }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsDesignErrorSetFromOptions(MbsDesign d, PetscOptionItems *PetscOptionsObject, MbsDesignErrorSettings *s)
{
  PetscInt  ngrid = 3 * PetscMin(d->nb, 2), nnoise = MBS_DESIGN_MAX_NOISE;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsReal("-design_sample_dt", "Sample spacing of the measurements of E_RMS [s]", "", s->sample_dt, &s->sample_dt, NULL));
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-design_noise", "Noise levels sigma of the measurements of E_RMS, in the output unit", "", s->nnoise, s->noise, &nnoise, &set));
  if (set) s->nnoise = nnoise;
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-design_noise_seed", "Seed of the standard-normal noise sequence", &s->seed, PETSC_MIN_INT, PETSC_MAX_INT, NULL));
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-design_error_grid", "E_RMS grid: lo,hi,count of b_1 [, of b_2] (default: the spec's, else b +-10 % in 11 points)", "", ngrid, s->grid, &ngrid, &set));
  PetscCheck(!set || ngrid == 3 * PetscMin(d->nb, 2), d->comm, PETSC_ERR_ARG_SIZ, "-design_error_grid needs lo,hi,count for each of the %" PetscInt_FMT " parameters, got %" PetscInt_FMT " values", PetscMin(d->nb, 2), ngrid);
  PetscCheck(s->sample_dt > 0 && s->sample_dt <= d->base->tf - d->base->t0, d->comm, PETSC_ERR_ARG_OUTOFRANGE, "-design_sample_dt must be a positive spacing within [t0, tf], got %g s", (double)s->sample_dt);
  for (PetscInt i = 0; i < s->nnoise; i++) PetscCheck(s->noise[i] >= 0, d->comm, PETSC_ERR_ARG_OUTOFRANGE, "-design_noise: sigma must be >= 0, got %g", (double)s->noise[i]);
  for (PetscInt j = 0; j < PetscMin(d->nb, 2); j++)
    PetscCheck(s->grid[3 * j + 2] >= 1 && s->grid[3 * j + 2] <= 1000 && s->grid[3 * j + 1] >= s->grid[3 * j], d->comm, PETSC_ERR_ARG_OUTOFRANGE, "-design_error_grid: b_%" PetscInt_FMT " needs lo <= hi and 1..1000 points", j + 1);
  PetscFunctionReturn(0);
}

/* y_i and S_i (nsample x nb) of the extended system at b */
static PetscErrorCode MbsDesignErrorSample_Private(MbsDesign d, const PetscReal b[], MbsDesignSamples *samples, PetscReal y[], PetscReal S[])
{
  PetscInt n = d->base->n, N = d->ext->n;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < d->nb; j++) d->ext->p[d->b[j]] = b[j];
  PetscCall(MbsDesignSample(d, 0, samples, NULL, NULL, NULL, NULL));
  for (PetscInt i = 0; i < samples->n; i++) {
    const PetscReal *z = samples->z + i * N;

    y[i] = 0;
    for (PetscInt k = 0; k < n; k++) y[i] += d->dydu[k] * z[k];
    for (PetscInt j = 0; j < d->nb; j++) {
      S[i * d->nb + j] = 0;
      for (PetscInt k = 0; k < n; k++) S[i * d->nb + j] += d->dydu[k] * z[(1 + j) * n + k];
    }
  }
  PetscFunctionReturn(0);
}

/* E, its gradient and exact Hessian at b against the measurement ym */
static PetscErrorCode MbsDesignErrorLocal_Private(MbsDesign d, const PetscReal b[], MbsDesignSamples *samples, const PetscReal ym[], PetscReal *E, PetscReal grad[], PetscReal hess[], PetscReal work[])
{
  PetscInt   ns = samples->n, nb = d->nb;
  PetscReal *y = work, *S = work + ns, *Sp = work + ns * (1 + nb), *Sm = work + ns * (1 + 2 * nb), *yfd = work + ns * (1 + 3 * nb), bh[MBS_DESIGN_MAX_PARAMETERS];

  PetscFunctionBeginUser;
  PetscCall(MbsDesignErrorSample_Private(d, b, samples, y, S));
  *E = 0;
  for (PetscInt j = 0; j < nb; j++) grad[j] = 0;
  PetscCall(PetscArrayzero(hess, nb * nb));
  for (PetscInt i = 0; i < ns; i++) {
    PetscReal r = ym[i] - y[i];

    *E += 0.5 * r * r;
    for (PetscInt j = 0; j < nb; j++) {
      grad[j] -= r * S[i * nb + j];
      for (PetscInt l = 0; l < nb; l++) hess[j * nb + l] += S[i * nb + j] * S[i * nb + l];
    }
  }
  for (PetscInt l = 0; l < nb; l++) {
    PetscReal h = 1e-4 * PetscMax(PetscAbsReal(b[l]), PETSC_SMALL);

    PetscCall(PetscArraycpy(bh, b, nb));
    bh[l] = b[l] + h;
    PetscCall(MbsDesignErrorSample_Private(d, bh, samples, yfd, Sp));
    bh[l] = b[l] - h;
    PetscCall(MbsDesignErrorSample_Private(d, bh, samples, yfd, Sm));
    for (PetscInt i = 0; i < ns; i++)
      for (PetscInt j = 0; j < nb; j++) {
        PetscReal d2y = (Sp[i * nb + j] - Sm[i * nb + j]) / (2 * h);

        hess[j * nb + l] -= 0.5 * (ym[i] - y[i]) * d2y;
        hess[l * nb + j] -= 0.5 * (ym[i] - y[i]) * d2y;
      }
  }
  PetscFunctionReturn(0);
}

/* x <- A^{-1} x for nb <= 2 */
static PetscErrorCode MbsSolveSmall_Private(PetscInt nb, const PetscReal A[], PetscReal x[])
{
  PetscFunctionBeginUser;
  if (nb == 1) {
    PetscCheck(A[0] != 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "E_RMS has zero curvature: the input does not excite the parameter");
    x[0] /= A[0];
  } else {
    PetscReal det = A[0] * A[3] - A[1] * A[2], x0 = x[0];

    PetscCheck(det != 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "E_RMS has a singular Hessian: the input does not separate the parameters");
    x[0] = (A[3] * x0 - A[1] * x[1]) / det;
    x[1] = (A[0] * x[1] - A[2] * x0) / det;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsDesignErrorCompute(MbsDesign d, const MbsDesignErrorSettings *s, MbsDesignError *e)
{
  PetscInt         nb = d->nb, ns, npoints = 1;
  PetscReal        b_true[MBS_DESIGN_MAX_PARAMETERS], span = d->base->tf - d->base->t0, *noise, *y_true, *ym, *work, *S, vec[4];
  MbsDesignSamples samples;

  PetscFunctionBeginUser;
  PetscCheck(nb <= 2, d->comm, PETSC_ERR_SUP, "E_RMS is evaluated for one or two parameters, the design has %" PetscInt_FMT, nb);
  for (PetscInt j = 0; j < nb; j++)
    PetscCheck(s->grid[3 * j + 2] == 1 || s->grid[3 * j + 1] > s->grid[3 * j], d->comm, PETSC_ERR_ARG_OUTOFRANGE, "-design_error_grid: the E_RMS grid of %s has %g points on [%g, %g], an empty range (the default b +-10 %% is empty at %s = 0, a joint's point on an axis); give its lo,hi,count or -design_error 0",
               d->base->param_info[d->b[j]].name, (double)s->grid[3 * j + 2], (double)s->grid[3 * j], (double)s->grid[3 * j + 1], d->base->param_info[d->b[j]].name);
  PetscCall(MbsDesignErrorReset(e));
  ns = (PetscInt)PetscFloorReal(span / s->sample_dt + 1e-9) + 1;
  PetscCall(PetscMalloc5(ns, &samples.t, ns * d->ext->n, &samples.z, ns, &noise, ns, &y_true, ns, &ym));
  PetscCall(PetscMalloc2(ns * (2 + 3 * nb), &work, ns * nb, &S));
  samples.n = ns;
  for (PetscInt i = 0; i < ns; i++) samples.t[i] = d->base->t0 + i * s->sample_dt;
  for (PetscInt j = 0; j < nb; j++) b_true[j] = d->ext->p[d->b[j]];
  e->nsample = ns;
  PetscCall(MbsNormalSequence(s->seed, ns, noise));
  for (PetscInt i = 0; i < ns; i++) {
    e->noise_sum += noise[i];
    e->noise_sum2 += noise[i] * noise[i];
  }
  PetscCall(PetscArraycpy(e->noise_first, noise, PetscMin(ns, 4)));

  /* the truth: H, H_rel and the shape of the surface */
  PetscCall(MbsDesignErrorSample_Private(d, b_true, &samples, y_true, S));
  PetscCall(PetscMalloc2(ns, &e->t_sample, ns, &e->response));
  PetscCall(PetscArraycpy(e->t_sample, samples.t, ns));
  PetscCall(PetscArraycpy(e->response, y_true, ns));
  for (PetscInt j = 0; j < nb; j++)
    for (PetscInt l = 0; l < nb; l++) {
      e->H[j * nb + l] = 0;
      for (PetscInt i = 0; i < ns; i++) e->H[j * nb + l] += S[i * nb + j] * S[i * nb + l];
      e->H_rel[j * nb + l] = b_true[j] * e->H[j * nb + l] * b_true[l];
    }
  PetscCall(MbsDesignEigen(nb, e->H, e->eig, NULL, &e->condition));
  PetscCall(MbsDesignEigen(nb, e->H_rel, e->eig_rel, vec, &e->condition_rel));
  e->angle = 0;
  if (nb == 2) { /* of the eigenvector of the larger eigenvalue (column 1), in [-90, 90) */
    e->angle = 180 / PETSC_PI * PetscAtan2Real(vec[3], vec[2]);
    while (e->angle >= 90) e->angle -= 180;
    while (e->angle < -90) e->angle += 180;
  }

  for (PetscInt j = 0; j < nb; j++) {
    e->ngrid[j] = (PetscInt)s->grid[3 * j + 2];
    npoints *= e->ngrid[j];
    PetscCall(PetscMalloc1(e->ngrid[j], &e->grid_values[j]));
    for (PetscInt k = 0; k < e->ngrid[j]; k++) e->grid_values[j][k] = e->ngrid[j] == 1 ? s->grid[3 * j] : s->grid[3 * j] + k * (s->grid[3 * j + 1] - s->grid[3 * j]) / (e->ngrid[j] - 1);
  }
  e->nnoise = s->nnoise;
  for (PetscInt m = 0; m < s->nnoise; m++) {
    PetscReal b[MBS_DESIGN_MAX_PARAMETERS], E, grad[MBS_DESIGN_MAX_PARAMETERS], step[MBS_DESIGN_MAX_PARAMETERS];
    PetscBool converged = PETSC_FALSE;

    e->noise[m] = s->noise[m];
    for (PetscInt i = 0; i < ns; i++) ym[i] = y_true[i] + s->noise[m] * noise[i];
    PetscCall(PetscMalloc1(npoints, &e->E[m]));
    for (PetscInt p = 0; p < npoints; p++) {
      PetscReal *y = work;

      b[0] = e->grid_values[0][nb == 2 ? p / e->ngrid[1] : p];
      if (nb == 2) b[1] = e->grid_values[1][p % e->ngrid[1]];
      PetscCall(MbsDesignErrorSample_Private(d, b, &samples, y, S));
      e->E[m][p] = 0;
      for (PetscInt i = 0; i < ns; i++) e->E[m][p] += 0.5 * (ym[i] - y[i]) * (ym[i] - y[i]);
    }
    PetscCall(MbsDesignErrorLocal_Private(d, b_true, &samples, ym, &E, grad, e->hessian[m], work));
    PetscCall(PetscArraycpy(b, b_true, nb));
    for (e->newton_its[m] = 0; e->newton_its[m] < 30 && !converged; e->newton_its[m]++) {
      PetscReal hess[4];

      PetscCall(MbsDesignErrorLocal_Private(d, b, &samples, ym, &E, grad, hess, work));
      PetscCall(PetscArraycpy(step, grad, nb));
      PetscCall(MbsSolveSmall_Private(nb, hess, step));
      converged = PETSC_TRUE;
      for (PetscInt j = 0; j < nb; j++) {
        b[j] -= step[j];
        if (PetscAbsReal(step[j]) >= 1e-10 * PetscMax(PetscAbsReal(b[j]), s->grid[3 * j + 1] - s->grid[3 * j])) converged = PETSC_FALSE; /* b = 0: the grid's width */
      }
    }
    PetscCheck(converged, d->comm, PETSC_ERR_NOT_CONVERGED, "Newton's method for argmin E_RMS (sigma = %g) did not converge in 30 iterations", (double)s->noise[m]);
    PetscCall(PetscArraycpy(e->estimate[m], b, nb));
  }
  for (PetscInt j = 0; j < nb; j++) d->ext->p[d->b[j]] = b_true[j];
  e->done = PETSC_TRUE;
  PetscCall(PetscFree5(samples.t, samples.z, noise, y_true, ym));
  PetscCall(PetscFree2(work, S));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsDesignErrorView(MbsDesign d, const MbsDesignError *e)
{
  PetscInt    nb = d->nb;
  const char *b1 = d->base->param_info[d->b[0]].name;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(d->comm, "  E_RMS on %" PetscInt_FMT " samples; noise n_0..n_3 = %.15e %.15e %.15e %.15e, sum n_i = %.15e, sum n_i^2 = %.15e\n", e->nsample, (double)e->noise_first[0], (double)e->noise_first[1], (double)e->noise_first[2],
                        (double)e->noise_first[3], (double)e->noise_sum, (double)e->noise_sum2));
  PetscCall(PetscPrintf(d->comm, "    H = sum S^T S at the truth:"));
  for (PetscInt i = 0; i < nb * nb; i++) PetscCall(PetscPrintf(d->comm, " %.12e", (double)e->H[i]));
  PetscCall(PetscPrintf(d->comm, "\n    eigenvalues of H:"));
  for (PetscInt j = 0; j < nb; j++) PetscCall(PetscPrintf(d->comm, " %.12e", (double)e->eig[j]));
  PetscCall(PetscPrintf(d->comm, " (condition %.9e); of H_rel = D H D:", (double)e->condition));
  for (PetscInt j = 0; j < nb; j++) PetscCall(PetscPrintf(d->comm, " %.12e", (double)e->eig_rel[j]));
  PetscCall(PetscPrintf(d->comm, " (condition %.9e", (double)e->condition_rel));
  if (nb == 2) PetscCall(PetscPrintf(d->comm, ", angle of the stiff direction from the %s axis %.6f deg", b1, (double)e->angle));
  PetscCall(PetscPrintf(d->comm, ")\n"));
  for (PetscInt m = 0; m < e->nnoise; m++) {
    PetscCall(PetscPrintf(d->comm, "    sigma = %g: d2E/db2 at the truth", (double)e->noise[m]));
    for (PetscInt i = 0; i < nb * nb; i++) PetscCall(PetscPrintf(d->comm, " %.12e", (double)e->hessian[m][i]));
    PetscCall(PetscPrintf(d->comm, "; argmin E_RMS"));
    for (PetscInt j = 0; j < nb; j++) PetscCall(PetscPrintf(d->comm, " %s = %.12g", d->base->param_info[d->b[j]].name, (double)e->estimate[m][j]));
    PetscCall(PetscPrintf(d->comm, " (%" PetscInt_FMT " Newton steps)\n      E_RMS grid (rows %s", e->newton_its[m], b1));
    if (nb == 2) PetscCall(PetscPrintf(d->comm, ", columns %s", d->base->param_info[d->b[1]].name));
    PetscCall(PetscPrintf(d->comm, "):"));
    for (PetscInt p = 0; p < e->ngrid[0] * (nb == 2 ? e->ngrid[1] : 1); p++) PetscCall(PetscPrintf(d->comm, "%s%.10e", p % (nb == 2 ? e->ngrid[1] : 11) ? " " : "\n        ", (double)e->E[m][p]));
    PetscCall(PetscPrintf(d->comm, "\n"));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsDesignErrorWrite(MbsDesign d, MbsH5Writer *w, const char group[], const MbsDesignError *e)
{
  PetscInt nb = d->nb, dims[2] = {nb, nb}, four = 4;
  char     path[256], hessian[256], parameters[256], squared[64];

  PetscFunctionBeginUser;
  PetscCall(MbsDesignUnits(d, "", hessian, sizeof(hessian))); /* sums over the samples of (dy/db_i)(dy/db_j) */
  PetscCall(MbsDesignUnits(d, NULL, parameters, sizeof(parameters)));
  PetscCall(PetscSNPrintf(squared, sizeof(squared), "(%s)^2", d->base->output_unit));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/H", group));
  PetscCall(MbsH5WriteReals(w, path, 2, dims, e->H, hessian));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/H_rel", group));
  PetscCall(MbsH5WriteReals(w, path, 2, dims, e->H_rel, squared));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/H_eigenvalues", group));
  PetscCall(MbsH5WriteReals(w, path, 1, &nb, e->eig, hessian));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/H_rel_eigenvalues", group));
  PetscCall(MbsH5WriteReals(w, path, 1, &nb, e->eig_rel, squared));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/angle", group));
  PetscCall(MbsH5WriteReals(w, path, 1, (PetscInt[]){1}, &e->angle, "deg"));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/t", group));
  PetscCall(MbsH5WriteReals(w, path, 1, &e->nsample, e->t_sample, "s"));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/response", group));
  PetscCall(MbsH5WriteReals(w, path, 1, &e->nsample, e->response, d->base->output_unit));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/noise_first", group));
  PetscCall(MbsH5WriteReals(w, path, 1, &four, e->noise_first, "1"));
  for (PetscInt j = 0; j < nb; j++) {
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/grid_%s", group, d->base->param_info[d->b[j]].name));
    PetscCall(MbsH5WriteReals(w, path, 1, &e->ngrid[j], e->grid_values[j], d->base->param_info[d->b[j]].unit));
  }
  for (PetscInt m = 0; m < e->nnoise; m++) {
    PetscInt gdims[2] = {e->ngrid[0], nb == 2 ? e->ngrid[1] : 1};
    char     sigma[64];

    PetscCall(PetscSNPrintf(sigma, sizeof(sigma), "%s/sigma%" PetscInt_FMT, group, m));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/E_RMS", sigma));
    PetscCall(MbsH5WriteReals(w, path, nb, gdims, e->E[m], squared));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/hessian", sigma));
    PetscCall(MbsH5WriteReals(w, path, 2, dims, e->hessian[m], hessian));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/estimate", sigma));
    PetscCall(MbsH5WriteReals(w, path, 1, &nb, e->estimate[m], parameters));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/sigma", sigma));
    PetscCall(MbsH5WriteReals(w, path, 1, (PetscInt[]){1}, &e->noise[m], d->base->output_unit));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsDesignErrorReset(MbsDesignError *e)
{
  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < 2; j++) PetscCall(PetscFree(e->grid_values[j]));
  PetscCall(PetscFree2(e->t_sample, e->response));
  for (PetscInt m = 0; m < MBS_DESIGN_MAX_NOISE; m++) PetscCall(PetscFree(e->E[m]));
  PetscCall(PetscMemzero(e, sizeof(*e)));
  PetscFunctionReturn(0);
}
