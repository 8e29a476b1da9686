/*
  Frequency response of the linearisation about the model's operating point (MbsModelLinearizeFrequency(),
  MbsModelLinearizeFrequencyIO()): a load F(t) = Re(F e^{i w t}) on the input B gives the steady state
  x = Re(X e^{i w t}) and every output channel y_c = Re(H_c F e^{i w t}), w = 2 pi f,

    A(w) X = B,   A = K - w^2 M + i w C,   H_c = chat_c^T X,   chat_c = Cq_c + i w Cv_c - w^2 Ca_c,

  exact for a model that is linear about that state (beam_bushings.md section 5: the harmonic load case). A model with
  internal states (a Maxwell element's dampers) has the first-order form B x' = A x on x = (y, y', s) instead
  (MbsModelLinearizeFrequency()): then A(w) = i w B - A, that is M = 0, C = B, K = -A on x, the load B in the rows of
  y' and chat_c on y, and everything below holds as written for the larger system. PETSc is real
  here, so A X = B is solved as the real system [Ar -Ai; Ai Ar] [Xr; Xi] = [B; 0], Ar = K - w^2 M, Ai = w C.

  Gradient of a real J(H): with g_c = dJ/dRe H_c + i dJ/dIm H_c, dJ = Re(sum_c conj(g_c) dH_c), and dH_c = chat_c^T
  A^-1 (dB/dp - (dA/dp) X) + (dchat_c/dp)^T X (B moves with a force's point, chat_c with a sensor's), so one transposed
  solve per frequency,

    A^T Z = s,   s = sum_c conj(g_c) chat_c,
    dJ/dp = Re(Z^T dB/dp) + Re(sum_c conj(g_c) (dchat_c/dp)^T X) - Re(Z^T (dK/dp - w^2 dM/dp + i w dC/dp) X),

  with the exact derivatives of MbsModelLinearizeDerivative() (B real: Re(Z^T dB/dp) = Re(Z)^T dB/dp). In the real
  form A^T Z = s is
  [Ar^T Ai^T; -Ai^T Ar^T] [Zr; -Zi] = [sr; -si]: the transposed solve with the same factors.

  For J = 1/2 sum_c w_c sum_j |H_c - Hbar_c|^2 the Gauss-Newton matrix G_kl = sum_j sum_c w_c Re(conj(dH_c/dp_k)
  dH_c/dp_l) (the Hessian without the residuals' curvature, what Levenberg-Marquardt and a trust-region Newton method
  build on) takes the forward sensitivities dX/dp_k = A^-1 (dB/dp_k - (dA/dp_k) X): one more solve per parameter and
  frequency.
*/
#include "core/coreimpl.h"

/* The linearisation, its input and output rows, and the work of one frequency */
typedef struct {
  PetscInt   nq, nchannel; /* nq: the size of the system, the coordinates' or the first-order form's */
  PetscReal *M, *C, *K, *B, *Cq, *Cv, *Ca;
  PetscReal *A, *x, *z, *cr, *ci; /* the real 2nq system and its factors, X, Z, chat (nchannel x nq each) */
  PetscInt  *pivots;
  PetscReal *H, *dL;    /* of a gradient: H at one frequency, the derivative of each parameter (MbsModelLinearizeDerivative()) */
  PetscReal *dcr, *dci; /* of a gradient: a channel's dchat/dp (nq each) */
  PetscReal *dH;        /* of a Gauss-Newton matrix: dH_c/dp_k at one frequency (nid x nchannel x (re, im)) */
} MbsFrf;

static PetscErrorCode MbsFrfReset_Private(MbsFrf *frf)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(frf->M, frf->C, frf->K));
  PetscCall(PetscFree4(frf->B, frf->Cq, frf->Cv, frf->Ca));
  PetscCall(PetscFree6(frf->A, frf->x, frf->z, frf->cr, frf->ci, frf->pivots));
  PetscCall(PetscFree5(frf->H, frf->dL, frf->dH, frf->dcr, frf->dci));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsFrfSetUpWithin_Private(MbsModel model, const char load[], MbsFrf *frf)
{
  PetscInt m;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetNumChannels(model, &frf->nchannel));
  PetscCall(MbsModelLinearizeFrequency(model, &frf->nq, &frf->M, &frf->C, &frf->K));
  PetscCall(MbsModelLinearizeFrequencyIO(model, load, NULL, &m, &frf->B, &frf->Cq, &frf->Cv, &frf->Ca));
  PetscCheck(m == frf->nq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Model %s: its linearisation has %" PetscInt_FMT " coordinates, its load and output rows %" PetscInt_FMT, model->type, frf->nq, m);
  PetscCall(PetscMalloc6(4 * m * m, &frf->A, 2 * m, &frf->x, 2 * m, &frf->z, frf->nchannel * m, &frf->cr, frf->nchannel * m, &frf->ci, 6 * m, &frf->pivots));
  PetscFunctionReturn(0);
}

/* A failure leaves nothing allocated */
static PetscErrorCode MbsFrfSetUp_Private(MbsModel model, const char load[], MbsFrf *frf)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(frf, sizeof(*frf)));
  MbsCallUndo(MbsFrfSetUpWithin_Private(model, load, frf), MbsFrfReset_Private(frf));
  PetscFunctionReturn(0);
}

/* chat^T x of one channel (complex: chat = cr + i ci, x = (re, im)) */
static void MbsFrfRowTimes_Private(PetscInt m, const PetscReal cr[], const PetscReal ci[], const PetscReal x[], PetscReal *re, PetscReal *im)
{
  *re = *im = 0;
  for (PetscInt i = 0; i < m; i++) {
    *re += cr[i] * x[i] - ci[i] * x[m + i];
    *im += cr[i] * x[m + i] + ci[i] * x[i];
  }
}

/* Factors A(w) in its real form, solves for X and fills chat and H (nchannel x (re, im)) */
static PetscErrorCode MbsFrfSolve_Private(MbsModel model, MbsFrf *frf, PetscReal f, PetscReal H[])
{
  PetscInt  m = frf->nq, N = 2 * m, zero_pivot;
  PetscReal w = 2 * PETSC_PI * f;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < m; j++)
    for (PetscInt i = 0; i < m; i++) {
      PetscReal ar = MBS_IJ(frf->K, i, j, m) - w * w * MBS_IJ(frf->M, i, j, m), ai = w * MBS_IJ(frf->C, i, j, m);

      MBS_IJ(frf->A, i, j, N)         = ar;
      MBS_IJ(frf->A, i, m + j, N)     = -ai;
      MBS_IJ(frf->A, m + i, j, N)     = ai;
      MBS_IJ(frf->A, m + i, m + j, N) = ar;
    }
  zero_pivot = MbsDenseLUFactor(N, frf->A, frf->pivots);
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model %s: K - w^2 M + i w C (i w B - A with internal states) is singular at %g Hz (an undamped mode at this frequency), so the frequency response is infinite there", model->type, (double)f);
  for (PetscInt i = 0; i < m; i++) {
    frf->x[i]     = frf->B[i];
    frf->x[m + i] = 0;
  }
  MbsDenseLUSolve(N, frf->A, frf->pivots, 1, frf->x);
  for (PetscInt c = 0; c < frf->nchannel; c++) {
    PetscReal *cr = frf->cr + c * m, *ci = frf->ci + c * m;

    for (PetscInt i = 0; i < m; i++) {
      cr[i] = frf->Cq[c * m + i] - w * w * frf->Ca[c * m + i];
      ci[i] = w * frf->Cv[c * m + i];
    }
    MbsFrfRowTimes_Private(m, cr, ci, frf->x, &H[2 * c], &H[2 * c + 1]);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsFrequencyResponse_Private(MbsModel model, MbsFrf *frf, PetscInt nf, const PetscReal f[], PetscReal H[])
{
  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < nf; j++) PetscCall(MbsFrfSolve_Private(model, frf, f[j], H + 2 * frf->nchannel * j));
  PetscFunctionReturn(0);
}

/*@C
  MbsFrequencyResponse - H_c(f_j) of every output channel c of the model's linearisation at the nf frequencies f [Hz]
  for a unit load on the force element named load (NULL: the model's first excitation): H (nf x nchannel x (re, im),
  row-major), in the channel's unit per newton. Not collective.
@*/
PetscErrorCode MbsFrequencyResponse(MbsModel model, const char load[], PetscInt nf, const PetscReal f[], PetscReal H[])
{
  MbsFrf frf;

  PetscFunctionBeginUser;
  PetscCall(MbsFrfSetUp_Private(model, load, &frf));
  MbsCallCleanup(MbsFrequencyResponse_Private(model, &frf, nf, f, H), MbsFrfReset_Private(&frf));
  PetscFunctionReturn(0);
}

/* dA/dp_k X (complex) into v (2 nq: re, im), dL = dM, dC, dK */
static void MbsFrfDerivativeTimes_Private(PetscInt m, PetscReal w, const PetscReal dL[], const PetscReal x[], PetscReal v[])
{
  const PetscReal *dM = dL, *dC = dM + m * m, *dK = dC + m * m;

  for (PetscInt a = 0; a < m; a++) {
    v[a] = v[m + a] = 0;
    for (PetscInt b = 0; b < m; b++) {
      PetscReal dr = dK[a + b * m] - w * w * dM[a + b * m], di = w * dC[a + b * m];

      v[a] += dr * x[b] - di * x[m + b];
      v[m + a] += dr * x[m + b] + di * x[b];
    }
  }
}

/* The share of the output rows in dH_c/dp_k, dchat_c^T X, dL of parameter k (MbsModelLinearizeDerivative()'s layout) */
static void MbsFrfRowsDerivative_Private(MbsFrf *frf, PetscReal w, const PetscReal dL[], PetscInt c, PetscReal *re, PetscReal *im)
{
  PetscInt         m = frf->nq, nc = frf->nchannel;
  const PetscReal *dCq = dL + 3 * m * m + m + c * m, *dCv = dCq + nc * m, *dCa = dCv + nc * m;

  for (PetscInt i = 0; i < m; i++) {
    frf->dcr[i] = dCq[i] - w * w * dCa[i];
    frf->dci[i] = w * dCv[i];
  }
  MbsFrfRowTimes_Private(m, frf->dcr, frf->dci, frf->x, re, im);
}

/* G += sum_c w_c Re(conj(dH_c/dp_k) dH_c/dp_l) at one frequency, from the forward sensitivities dX/dp_k = A^-1 (dB/dp_k
   - dA/dp_k X) (A factored, X solved) and dH_c/dp_k = chat_c^T dX/dp_k + dchat_c/dp_k^T X */
static void MbsFrfGaussNewton_Private(MbsFrf *frf, PetscReal w, const PetscReal weight[], PetscInt nid, PetscReal G[])
{
  PetscInt m = frf->nq, nc = frf->nchannel, stride = 3 * m * m + m + 3 * nc * m;

  for (PetscInt k = 0; k < nid; k++) {
    const PetscReal *dL = frf->dL + stride * k, *dB = dL + 3 * m * m;
    PetscReal       *dx = frf->z, *dHk = frf->dH + 2 * nc * k;

    MbsFrfDerivativeTimes_Private(m, w, dL, frf->x, dx);
    for (PetscInt i = 0; i < m; i++) {
      dx[i]     = dB[i] - dx[i];
      dx[m + i] = -dx[m + i];
    }
    MbsDenseLUSolve(2 * m, frf->A, frf->pivots, 1, dx);
    for (PetscInt c = 0; c < nc; c++) {
      PetscReal re, im;

      MbsFrfRowTimes_Private(m, frf->cr + c * m, frf->ci + c * m, dx, &dHk[2 * c], &dHk[2 * c + 1]);
      MbsFrfRowsDerivative_Private(frf, w, dL, c, &re, &im);
      dHk[2 * c] += re;
      dHk[2 * c + 1] += im;
    }
  }
  for (PetscInt k = 0; k < nid; k++)
    for (PetscInt l = 0; l < nid; l++)
      for (PetscInt c = 0; c < nc; c++) G[k * nid + l] += weight[c] * (frf->dH[2 * (nc * k + c)] * frf->dH[2 * (nc * l + c)] + frf->dH[2 * (nc * k + c) + 1] * frf->dH[2 * (nc * l + c) + 1]);
}

static PetscErrorCode MbsFrequencyResponseGradient_Private(MbsModel model, const char load[], MbsFrf *frf, PetscInt nf, const PetscReal f[], const PetscReal dJdH[], const PetscReal weight[], PetscInt nid, const PetscInt id[], PetscReal grad[], PetscReal G[])
{
  PetscInt   m = frf->nq, mm = m * m, stride = 3 * mm + m + 3 * frf->nchannel * m;
  PetscReal *H = frf->H;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < nid; k++) PetscCall(MbsModelLinearizeDerivative(model, load, id[k], frf->dL + stride * k));
  for (PetscInt j = 0; j < nf; j++) {
    const PetscReal *g = dJdH + 2 * frf->nchannel * j, w = 2 * PETSC_PI * f[j];
    const PetscReal *xr = frf->x, *xi = frf->x + m, *zr = frf->z, *mzi = frf->z + m; /* mzi = -Im Z */

    PetscCall(MbsFrfSolve_Private(model, frf, f[j], H));
    if (G) MbsFrfGaussNewton_Private(frf, w, weight, nid, G);
    for (PetscInt i = 0; i < m; i++) { /* [sr; -si] */
      frf->z[i] = frf->z[m + i] = 0;
      for (PetscInt c = 0; c < frf->nchannel; c++) {
        const PetscReal cr = frf->cr[c * m + i], ci = frf->ci[c * m + i];

        frf->z[i] += g[2 * c] * cr + g[2 * c + 1] * ci;
        frf->z[m + i] -= g[2 * c] * ci - g[2 * c + 1] * cr;
      }
    }
    MbsDenseLUSolveTranspose(2 * m, frf->A, frf->pivots, frf->z);
    for (PetscInt k = 0; k < nid; k++) {
      const PetscReal *dM = frf->dL + stride * k, *dC = dM + mm, *dK = dC + mm, *dB = dK + mm;
      PetscReal        sum = 0, direct = 0; /* Re(Z^T dA X); Re(Z^T dB) + Re(sum_c conj(g_c) dchat_c^T X) */

      for (PetscInt b = 0; b < m; b++)
        for (PetscInt a = 0; a < m; a++) {
          PetscReal dr = dK[a + b * m] - w * w * dM[a + b * m], di = w * dC[a + b * m];

          /* Re(Z^T dA X) = zr^T (Dr xr - Di xi) - zi^T (Dr xi + Di xr) */
          sum += zr[a] * (dr * xr[b] - di * xi[b]) + mzi[a] * (dr * xi[b] + di * xr[b]);
        }
      for (PetscInt a = 0; a < m; a++) direct += zr[a] * dB[a];
      for (PetscInt c = 0; c < frf->nchannel; c++) {
        PetscReal re, im;

        MbsFrfRowsDerivative_Private(frf, w, frf->dL + stride * k, c, &re, &im);
        direct += g[2 * c] * re + g[2 * c + 1] * im;
      }
      grad[k] += direct - sum;
    }
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsFrequencyResponseGradient - Adds dJ/dp of the parameters id[0..nid-1] to grad, for a real J(H) of the frequency
  response of MbsFrequencyResponse() whose derivatives dJ/dRe H and dJ/dIm H are dJdH (its layout): one transposed
  solve per frequency, the derivatives of M, C, K and of the load and output rows exact (MbsModelLinearizeDerivative()).
  With G (nid x nid, may be NULL) also adds the Gauss-Newton matrix of J = 1/2 sum_c weight[c] sum_j |H_c - Hbar_c|^2
  (weight: nchannel, 0 for a channel J does not compare). Not collective.
@*/
PetscErrorCode MbsFrequencyResponseGradient(MbsModel model, const char load[], PetscInt nf, const PetscReal f[], const PetscReal dJdH[], const PetscReal weight[], PetscInt nid, const PetscInt id[], PetscReal grad[], PetscReal G[])
{
  MbsFrf frf;

  PetscFunctionBeginUser;
  PetscCall(MbsFrfSetUp_Private(model, load, &frf));
  MbsCallUndo(PetscMalloc5(2 * frf.nchannel, &frf.H, (3 * frf.nq * frf.nq + frf.nq + 3 * frf.nchannel * frf.nq) * nid, &frf.dL, 2 * frf.nchannel * nid, &frf.dH, frf.nq, &frf.dcr, frf.nq, &frf.dci), MbsFrfReset_Private(&frf));
  MbsCallCleanup(MbsFrequencyResponseGradient_Private(model, load, &frf, nf, f, dJdH, weight, nid, id, grad, G), MbsFrfReset_Private(&frf));
  PetscFunctionReturn(0);
}
