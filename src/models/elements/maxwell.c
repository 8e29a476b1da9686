/*
  Element maxwell: a bushing (bushing.c: the frame C fixed to body a at P_a, body b's point P_b) whose three translation
  coordinates e_i = (R_a C e_i).(P_b - P_a) each carry a Maxwell branch, a spring k_m,i in series with a damper c_m,i,
  beside an optional Kelvin-Voigt branch k_i, d_i (the rubber mount's standard linear solid). The damper's deflection
  s_j is an internal first-order state of the model (no mass):

    c_m s_j' - k_m (e_i - s_j) = 0                                  the state row j of direction i   [N]
    f_i = K_i(e_i) + D_i(e_i, e_i') + k_m (e_i - s_j)                the load along axis i            [N]

  with K, D the stiffness and damping laws of force_law.c (linear k e, d e' by default); the generalised force is the
  bushing's, Q = -(de/dq)^T f. A direction whose maxwell_stiffness is the number 0 has no Maxwell branch and no state.
  Derivatives of the Maxwell part, per direction (grad = de_i/dq, H = d2e_i/dq2 constant, g = k_m (e - s)):

    force rows   d/dq = k_m grad grad^T + g H,   d/ds_j = -k_m grad,   d/dk_m = (e - s) grad
    state row    d/dq = -k_m grad^T,  d/ds_j = k_m,  d/ds_j' = c_m,  d/dk_m = -(e - s),  d/dc_m = s_j'

  At rest the damper has relaxed: s_j(t0) = e_i(q(t0)) (zero at the file's pose when point is shared), so the Maxwell
  branch starts unloaded and s'(t0) = 0 whatever the parameters. Fields: bodies, point or point_a, point_b, axes as a
  bushing; maxwell_stiffness: [3] [N/m] (>= 0), maxwell_damping: [3] [N s/m] (> 0 where k_m is not 0); optional
  stiffness, damping: [3] (numbers, parameters or laws).
*/
#include "models/elements/elementimpl.h"

/* The direction (0..2) of state j: the j-th direction whose k_m is a parameter or a non-zero number, or -1 */
static PetscInt MaxwellDirection(const MbsElement *el, PetscInt j)
{
  for (PetscInt i = 0; i < 3; i++) {
    const MbsValue *km = &el->value[6 + i];

    if ((km->param >= 0 || km->value != 0) && j-- == 0) return i;
  }
  return -1;
}

static PetscErrorCode MaxwellRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  MbsVectorMap   a[3], c[3];
  PetscInt       nk, nd;

  PetscFunctionBeginUser;
  PetscCall(MbsBushingTranslationRows(reader, node, el, a, c));
  PetscCall(MbsForceLawsRead(reader, node, "stiffness", PETSC_TRUE, "N", "m", PETSC_FALSE, 3, el, 0, &nk));
  PetscCall(MbsForceLawsRead(reader, node, "damping", PETSC_FALSE, "N", "m", PETSC_FALSE, 3, el, 3, &nd));
  if ((nk && nk != 3) || (nd && nd != 3)) PetscCall(MbsYAMLError(reader, node, "stiffness and damping (the parallel branch) need 3 values each, or none"));
  PetscCall(MbsYAMLReadValues(reader, node, "maxwell_stiffness", "N/m", PETSC_TRUE, 3, el->value + 6, NULL));
  PetscCall(MbsYAMLReadValues(reader, node, "maxwell_damping", "N s/m", PETSC_TRUE, 3, el->value + 9, NULL));
  for (PetscInt i = 0; i < 12; i++) {
    const MbsValue *value = &el->value[i];
    PetscReal       x     = value->param >= 0 ? desc->param_info[value->param].value : value->value;

    if (x < 0) PetscCall(MbsYAMLError(reader, node, "%s %" PetscInt_FMT " is %g; it must not be negative", i < 3 ? "stiffness" : i < 6 ? "damping" : i < 9 ? "maxwell_stiffness" : "maxwell_damping", i % 3 + 1, (double)x));
  }
  for (el->nstate = 0; MaxwellDirection(el, el->nstate) >= 0; el->nstate++) {
    const MbsValue *cm = &el->value[9 + MaxwellDirection(el, el->nstate)];
    PetscReal       x  = cm->param >= 0 ? desc->param_info[cm->param].value : cm->value;

    if (!(x > 0))
      PetscCall(MbsYAMLError(reader, node, "maxwell_damping %" PetscInt_FMT " is %g, but its direction has a Maxwell spring: c_m must be positive (give maxwell_stiffness 0 for a direction without a Maxwell branch)", MaxwellDirection(el, el->nstate) + 1, (double)x));
  }
  if (!el->nstate) PetscCall(MbsYAMLError(reader, node, "every maxwell_stiffness is 0: a maxwell element without a Maxwell branch is a bushing"));
  PetscFunctionReturn(0);
}

static PetscErrorCode MaxwellState(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal s[], const PetscReal sdot[], PetscReal R[], PetscReal J[], PetscReal Jp[])
{
  PetscInt   nq = desc->nq, ns = el->nstate, ld = nq + ns;
  PetscReal *grad = desc->work, *hess = desc->work + nq;

  PetscFunctionBeginUser;
  for (PetscInt i = 0, j = 0; i < 3; i++) {
    const MbsValue *km = &el->value[6 + i], *cm = &el->value[9 + i];
    PetscReal       e      = MbsBilinearValue(desc, &el->row[i], q);
    PetscBool       branch = (PetscBool)(MaxwellDirection(el, j) == i);

    PetscCall(PetscArrayzero(grad, nq));
    MbsBilinearAddGradient(desc, &el->row[i], q, 1, grad, 1);
    if (J) {
      PetscCall(PetscArrayzero(hess, nq * nq));
      MbsBilinearAddHessian(desc, &el->row[i], 1, hess, nq);
    }
    MbsCoordinateForce(desc, el, i, 3 + i, e, grad, J ? hess : NULL, v, R, J, J ? J + nq * ld : NULL, Jp, ld);
    if (!branch) continue;
    {
      const PetscReal k = MbsValueOf(km, desc->p), c = MbsValueOf(cm, desc->p), x = e - s[j], rate = sdot ? sdot[j] : 0;
      PetscInt        row = nq + j, scol = 2 * nq + j, sdcol = 2 * nq + ns + j;

      for (PetscInt r = 0; r < nq; r++) R[r] += k * x * grad[r];
      R[row] += c * rate - k * x;
      for (PetscInt col = 0; col < nq && J; col++) {
        for (PetscInt r = 0; r < nq; r++) J[r + col * ld] += k * grad[r] * grad[col] + k * x * hess[r + col * nq];
        J[row + col * ld] -= k * grad[col];
      }
      for (PetscInt r = 0; r < nq && J; r++) J[r + scol * ld] -= k * grad[r];
      if (J) {
        J[row + scol * ld] += k;
        J[row + sdcol * ld] += c;
      }
      if (Jp && km->param >= 0) {
        for (PetscInt r = 0; r < nq; r++) Jp[r + km->param * ld] += x * grad[r];
        Jp[row + km->param * ld] -= x;
      }
      if (Jp && cm->param >= 0) Jp[row + cm->param * ld] += rate;
    }
    j++;
  }
  PetscFunctionReturn(0);
}

/* The dampers relaxed at the initial pose: s_j = e_i(q) */
static void MaxwellStateInitial(MbsDescription desc, const MbsElement *el, const PetscReal q[], PetscReal s[])
{
  for (PetscInt j = 0; j < el->nstate; j++) s[j] = MbsBilinearValue(desc, &el->row[MaxwellDirection(el, j)], q);
}

static const MbsElementStateType Maxwell = {
  {MBS_ELEMENT_FORCE, MaxwellRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_FALSE, NULL},
  MaxwellState, MaxwellStateInitial
};

PetscErrorCode MbsElementGetType_Maxwell(const MbsElementType **type)
{
  *type = &Maxwell.base;
  return 0;
}
