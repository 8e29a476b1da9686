/*
  Element maxwell: a bushing (bushing.c: the frame C fixed to body a at P_a, body b's point P_b) whose coordinates each
  may carry a Maxwell branch, a spring k_m,i in series with a damper c_m,i, beside an optional Kelvin-Voigt branch k_i,
  d_i (the rubber mount's standard linear solid). The coordinates are the bushing's: its three translations
  e_i = (R_a C e_i).(P_b - P_a) [m] and, when a rotational field is given, its three small rotations
  e_3+i = x_r,i = vect(C^T R_a^T R_b R0^T C)_i [rad] (bushing.c), the same bilinear measure as a bushing's rotational
  springs. The damper's deflection (a length, or for a rotation an angle) s_j is an internal first-order state of the
  model (no mass):

    c_m s_j' - k_m (e_i - s_j) = 0                                  the state row j of coordinate i  [N] or [N m]
    f_i = K_i(e_i) + D_i(e_i, e_i') + k_m (e_i - s_j)                the load along axis i or about it [N] or [N m]

  with K, D the stiffness and damping laws of force_law.c (linear k e, d e' by default); the generalised force is the
  bushing's, Q = -(de/dq)^T f. A coordinate whose Maxwell stiffness is the number 0 has no Maxwell branch and no state.
  Derivatives of the Maxwell part, per coordinate (grad = de_i/dq, H = d2e_i/dq2 constant, g = k_m (e - s)):

    force rows   d/dq = k_m grad grad^T + g H,   d/ds_j = -k_m grad,   d/dk_m = (e - s) grad
    state row    d/dq = -k_m grad^T,  d/ds_j = k_m,  d/ds_j' = c_m,  d/dk_m = -(e - s),  d/dc_m = s_j'

  and the second derivatives of design (MaxwellStateSecond) follow from these, grad's derivative being H.
  At rest the damper has relaxed: s_j(t0) = e_i(q(t0)) (zero at the file's pose when point is shared), so the Maxwell
  branch starts unloaded and s'(t0) = 0 whatever the parameters. Fields: bodies, point or point_a, point_b, axes as a
  bushing; maxwell_stiffness: [3] [N/m] (>= 0), maxwell_damping: [3] [N s/m] (> 0 where k_m is not 0); optional
  stiffness, damping: [3] (numbers, parameters or laws); on the rotations, optional rotational_maxwell_stiffness: [3]
  [N m/rad], rotational_maxwell_damping: [3] [N m s/rad], rotational_stiffness, rotational_damping: [3]. At least one
  Maxwell stiffness must not be 0; maxwell_stiffness and maxwell_damping may be left out when the rotations carry one.
  Values: el->value[Slot(i, b)], coordinate i = 0..5, branch b = 0..3 (k, d, k_m, c_m).

  Its points and the entries of its axes may hold parameters as a bushing's (geometry.c, bushing.c): a coordinate's
  e_i,p = s_p (MbsBushingRowP(); a frame entry moves the rotations' too) and
  d(e_i,q)/dp_j = grad_p enter the force and state rows (MaxwellGeometryP), the relaxed start (ds0/dp_j = e_i,q dq0/dp_j +
  s_p) and the second derivatives (grad's derivative H sq + grad_p, x's s_p, H's the Hessian of s_p).
*/
#include "models/elements/elementimpl.h"

/* Index into el->value of coordinate i's (0..5) branch value b: 0 k, 1 d, 2 k_m, 3 c_m */
static inline PetscInt Slot(PetscInt i, PetscInt b)
{
  return 12 * (i / 3) + 3 * b + i % 3;
}

/* The coordinate (0..5) of state j: the j-th coordinate whose k_m is a parameter or a non-zero number, or -1 */
static PetscInt MaxwellCoordinate(const MbsElement *el, PetscInt j)
{
  for (PetscInt i = 0; i < el->nrow; i++) {
    const MbsValue *km = &el->value[Slot(i, 2)];

    if ((km->param >= 0 || km->value != 0) && j-- == 0) return i;
  }
  return -1;
}

static PetscErrorCode MaxwellRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription    desc = MbsYAMLReaderDescription(reader);
  MbsVectorMap      a[3], c[3];
  PetscInt          n[8];
  const char *const field[8] = {"stiffness", "damping", "maxwell_stiffness", "maxwell_damping", "rotational_stiffness", "rotational_damping", "rotational_maxwell_stiffness", "rotational_maxwell_damping"};
  const char *const unit[2]  = {"N/m", "N m/rad"};
  const char *const sunit[2] = {"N s/m", "N m s/rad"};

  PetscFunctionBeginUser;
  PetscCall(MbsBushingTranslationRows(reader, node, el, a, c));
  for (PetscInt r = 0; r < 2; r++) {
    PetscCall(MbsForceLawsRead(reader, node, field[4 * r], PETSC_TRUE, r ? "N m" : "N", r ? "rad" : "m", PETSC_FALSE, 3, el, Slot(3 * r, 0), &n[4 * r]));
    PetscCall(MbsForceLawsRead(reader, node, field[4 * r + 1], PETSC_FALSE, r ? "N m" : "N", r ? "rad" : "m", PETSC_FALSE, 3, el, Slot(3 * r, 1), &n[4 * r + 1]));
    /* a Maxwell spring needs its damper; both are 3 values */
    n[4 * r + 2] = n[4 * r + 3] = MbsYAMLHasField(reader, node, field[4 * r + 2]) ? 3 : 0;
    if (!n[4 * r + 2] && MbsYAMLHasField(reader, node, field[4 * r + 3])) PetscCall(MbsYAMLError(reader, node, "%s needs %s: a Maxwell branch is a spring in series with a damper", field[4 * r + 3], field[4 * r + 2]));
    if (!n[4 * r + 2]) continue;
    PetscCall(MbsYAMLReadValues(reader, node, field[4 * r + 2], unit[r], PETSC_TRUE, 3, el->value + Slot(3 * r, 2), NULL));
    PetscCall(MbsYAMLReadValues(reader, node, field[4 * r + 3], sunit[r], PETSC_TRUE, 3, el->value + Slot(3 * r, 3), NULL));
  }
  for (PetscInt f = 0; f < 8; f++)
    if (n[f] && n[f] != 3) PetscCall(MbsYAMLError(reader, node, "%s has %" PetscInt_FMT " values; it needs 3 (one per axis of the frame), or none", field[f], n[f]));
  if (!n[2] && !n[6]) PetscCall(MbsYAMLError(reader, node, "the field 'maxwell_stiffness' (or 'rotational_maxwell_stiffness') is missing"));
  if (n[4] || n[5] || n[6] || n[7]) MbsBushingRotationRows(el, a, c);
  for (PetscInt i = 0; i < el->nrow; i++)
    for (PetscInt b = 0; b < 4; b++) {
      const MbsValue *value = &el->value[Slot(i, b)];
      PetscReal       x     = value->param >= 0 ? desc->param_info[value->param].value : value->value;

      if (x < 0) PetscCall(MbsYAMLError(reader, node, "%s %" PetscInt_FMT " is %g; it must not be negative", field[4 * (i / 3) + b], i % 3 + 1, (double)x));
    }
  for (el->nstate = 0; MaxwellCoordinate(el, el->nstate) >= 0; el->nstate++) {
    PetscInt        i  = MaxwellCoordinate(el, el->nstate);
    const MbsValue *cm = &el->value[Slot(i, 3)];
    PetscReal       x  = cm->param >= 0 ? desc->param_info[cm->param].value : cm->value;

    if (!(x > 0))
      PetscCall(MbsYAMLError(reader, node, "%s %" PetscInt_FMT " is %g, but its direction has a Maxwell spring: c_m must be positive (give %s 0 for a direction without a Maxwell branch)", field[4 * (i / 3) + 3], i % 3 + 1, (double)x, field[4 * (i / 3) + 2]));
  }
  if (!el->nstate) PetscCall(MbsYAMLError(reader, node, "every maxwell_stiffness is 0 (and every rotational_maxwell_stiffness): a maxwell element without a Maxwell branch is a bushing"));
  PetscFunctionReturn(0);
}

/*
  The columns d/dp_j of coordinate i's rows for each parameter p_j that moves its points (geometry.c) or frame: with
  s_p = e_i,p and grad_p = d(e_i,q)/dp_j (MbsBushingRowP), the Kelvin-Voigt branch's by MbsCoordinateForceP and
  the Maxwell branch's (k = k_m, x = e - s; row its state row, or -1 without a branch)

    force rows  k (s_p grad + x grad_p),   state row  -k s_p
*/
static void MaxwellGeometryP(MbsDescription desc, const MbsElement *el, PetscInt i, const PetscReal q[], const PetscReal v[], PetscReal e, PetscReal x, PetscReal k, const PetscReal grad[], PetscInt row, PetscReal Jp[], PetscInt ld)
{
  PetscInt   nq = desc->nq, param[MBS_MAX_BUSHING_PARAM], nparam = MbsBushingParameters(el, param);
  PetscReal *grad_p = desc->work + nq + nq * nq, s_p;

  for (PetscInt n = 0; n < nparam; n++) {
    PetscInt   j   = param[n];
    PetscReal *Jpj = Jp + j * ld;

    if (!MbsBushingRowP(desc, el, i, j, q, &s_p, grad_p, NULL)) continue;
    MbsCoordinateForceP(desc, el, Slot(i, 0), Slot(i, 1), e, grad, v, s_p, grad_p, Jpj);
    if (row < 0) continue;
    for (PetscInt r = 0; r < nq; r++) Jpj[r] += k * (s_p * grad[r] + x * grad_p[r]);
    Jpj[row] -= k * s_p;
  }
}

static PetscErrorCode MaxwellState(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal s[], const PetscReal sdot[], PetscReal R[], PetscReal J[], PetscReal Jp[])
{
  PetscInt   nq = desc->nq, ns = el->nstate, ld = nq + ns;
  PetscReal *grad = desc->work, *hess = desc->work + nq;

  PetscFunctionBeginUser;
  for (PetscInt i = 0, j = 0; i < el->nrow; i++) {
    const MbsValue *km = &el->value[Slot(i, 2)], *cm = &el->value[Slot(i, 3)];
    PetscReal       e      = MbsBilinearValue(desc, &el->row[i], q);
    PetscBool       branch = (PetscBool)(MaxwellCoordinate(el, j) == i);

    PetscCall(PetscArrayzero(grad, nq));
    MbsBilinearAddGradient(desc, &el->row[i], q, 1, grad, 1);
    if (J) {
      PetscCall(PetscArrayzero(hess, nq * nq));
      MbsBilinearAddHessian(desc, &el->row[i], 1, hess, nq);
    }
    MbsCoordinateForce(desc, el, Slot(i, 0), Slot(i, 1), e, grad, J ? hess : NULL, v, R, J, J ? J + nq * ld : NULL, Jp, ld);
    if (!branch && Jp) MaxwellGeometryP(desc, el, i, q, v, e, 0, 0, grad, -1, Jp, ld);
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
      if (Jp) MaxwellGeometryP(desc, el, i, q, v, e, x, k, grad, row, Jp, ld);
    }
    j++;
  }
  PetscFunctionReturn(0);
}

/* The dampers relaxed at the pose q: s_j = e_i(q), and ds_j = e_i,q dq + e_i,p (whatever k_m: at k_m = 0 the state
   rows at rest leave s free, but the relaxed start is still e_i(q)) along the pose's dq and the point's p_j (jp >= 0) */
static void MaxwellStateInitial(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal dq[], PetscInt jp, PetscReal s[], PetscReal ds[])
{
  for (PetscInt j = 0; j < el->nstate; j++) {
    PetscInt  i = MaxwellCoordinate(el, j);
    PetscReal s_p;

    s[j] = MbsBilinearValue(desc, &el->row[i], q);
    if (!ds) continue;
    ds[j] = dq ? MbsBilinearRate(desc, &el->row[i], q, dq) : 0;
    if (jp >= 0 && MbsBushingRowP(desc, el, i, jp, q, &s_p, desc->work, NULL)) ds[j] += s_p;
  }
}

/*
  The second derivatives (MbsElementStateSecondFn): the Kelvin-Voigt branch's by MbsCoordinateForceSecond, the Maxwell
  branch's from its derivatives above, with a = H sq, dx = grad.sq - ss_j the change of x = e - s, dk = [k_m is p_j]:

    force rows   d/dq: k (a grad^T + grad a^T) + k dx H + dk (grad grad^T + x H),   d/ds_j: -k a - dk grad
    state row    d/dq: -k a^T - dk grad^T,   d/ds_j: dk + shift [c_m is p_j]
*/
static PetscErrorCode MaxwellStateSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal s[], const PetscReal sq[], const PetscReal sv[], const PetscReal ss[], PetscInt jp, PetscReal shift, PetscReal D[], PetscReal work[])
{
  PetscInt   nq = desc->nq, ns = el->nstate, ld = nq + ns;
  PetscReal *grad = work, *hess = grad + nq, *a = hess + nq * nq, *grad_p = a + nq, *hess_p = grad_p + nq, *law_work = hess_p + nq * nq, s_p = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0, j = 0; i < el->nrow; i++) {
    const MbsValue *km = &el->value[Slot(i, 2)], *cm = &el->value[Slot(i, 3)];
    PetscReal       e     = MbsBilinearValue(desc, &el->row[i], q);
    PetscBool       moved = MbsBushingRowP(desc, el, i, jp, q, &s_p, grad_p, hess_p);

    PetscCall(PetscArrayzero(grad, nq + nq * nq));
    MbsBilinearAddGradient(desc, &el->row[i], q, 1, grad, 1);
    MbsBilinearAddHessian(desc, &el->row[i], 1, hess, nq);
    MbsCoordinateForceSecond(desc, el, Slot(i, 0), Slot(i, 1), e, moved ? s_p : 0, moved ? grad_p : NULL, grad, hess, moved ? hess_p : NULL, v, sq, sv, jp, D, D + nq * ld, ld, law_work);
    if (MaxwellCoordinate(el, j) != i) continue;
    {
      const PetscReal k = MbsValueOf(km, desc->p), x = e - s[j], dk = km->param == jp ? 1 : 0;
      PetscReal       dx  = moved ? s_p - ss[j] : -ss[j];
      PetscInt        row = nq + j, scol = 2 * nq + j;

      for (PetscInt r = 0; r < nq; r++) {
        a[r] = moved ? grad_p[r] : 0;
        for (PetscInt c = 0; c < nq; c++) a[r] += hess[r + c * nq] * sq[c];
        dx += grad[r] * sq[r];
      }
      for (PetscInt c = 0; c < nq; c++) {
        for (PetscInt r = 0; r < nq; r++) D[r + c * ld] += k * (a[r] * grad[c] + grad[r] * a[c]) + (k * dx + dk * x) * hess[r + c * nq] + dk * grad[r] * grad[c] + (moved ? k * x * hess_p[r + c * nq] : 0);
        D[row + c * ld] -= k * a[c] + dk * grad[c];
      }
      for (PetscInt r = 0; r < nq; r++) D[r + scol * ld] -= k * a[r] + dk * grad[r];
      D[row + scol * ld] += dk + (cm->param == jp ? shift : 0);
    }
    j++;
  }
  PetscFunctionReturn(0);
}

static const MbsElementStateType Maxwell = {
  {MBS_ELEMENT_FORCE, MaxwellRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_TRUE, MbsBushingRows},
  MaxwellState, MaxwellStateInitial, MaxwellStateSecond
};

PetscErrorCode MbsElementGetType_Maxwell(const MbsElementType **type)
{
  *type = &Maxwell.base;
  return 0;
}
