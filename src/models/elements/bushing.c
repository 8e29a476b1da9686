/*
  Element bushing: a linear Kelvin-Voigt bushing between a frame fixed to body a (axes C in a's body axes, at point
  P_a) and body b (seed 003, section 4.2.1; powertrain_mounts.md section 4). Its coordinates, resolved in the frame,

    e_i = x_t,i = (R_a C e_i).(P_b - P_a)                            translation [m], i = 1..3: e = C^T R_a^T (r_B - r_A)
    x_r   = vect(C^T R_a^T R_b R0^T C) = 1/2 (a_3.c_2 - a_2.c_3, a_1.c_3 - a_3.c_1, a_2.c_1 - a_1.c_2)   rotation [rad]

  with a_i = R_a C e_i, c_j = R_b R0^T C e_j and R0 the initial relative rotation (unloaded at the initial pose), are
  bilinear in q; each carries a spring k_i and a damper d_i on its rate (MbsRowForces). The generalised force
  Q = -(de/dq)^T (K e + D e') with e' = (de/dq) v is that of the force F_B = -R_a C f on b at P_b and its reaction on
  a at the same point P_b (no moment of the pair), f = K e + D e'; e' = C^T R_a^T (P_b' - P_a' - omega_a x (P_b - P_a)),
  the rate seen in the turning frame, so the damper dissipates e'^T D e' >= 0. Fields: bodies: [a, b], point or
  point_a and point_b, axes (the frame's x, y, z axes in ground coordinates at the initial pose, [[..], [..], [..]];
  default a's axes), stiffness: [kx, ky, kz] [N/m], damping: [dx, dy, dz] [N s/m], optional rotational_stiffness
  [N m/rad] and rotational_damping [N m s/rad] (3 each), all along the frame's axes. Any of these values may be a
  nonlinear law of its coordinate instead (force_law.c): f_i = K_i(e_i) + D_i(e_i, e_i').

  A coordinate of its points may be a parameter p_j (geometry.c): e_i = a_i.(P_b - P_a) then has the derivative
  e_i,p = a_i.D_j, D_j = d(P_b - P_a)/dp_j linear in q, again a bilinear scalar; -df/dp_j follows from
  MbsCoordinateForceP and the second derivatives take its gradient and (constant) Hessian.
*/
#include "models/elements/elementimpl.h"

/*@C
  MbsBushingRows - A bushing's translation rows a_i.(P_b - P_a) (its first three, or a bushing_force sensor's one) at
  its points' current place el->vector (geometry.c). Not collective.
@*/
void MbsBushingRows(MbsDescription desc, MbsElement *el)
{
  MbsVectorMap d;

  MbsElementPointDifference(desc, el, &d);
  for (PetscInt i = 0; i < PetscMin(3, el->nrow); i++) el->row[i].b[0] = d;
}

/*@C
  MbsBushingRowByPoint - e_i,p = a_i.D of translation row i (D = d(P_b - P_a)/dp_j): its value, gradient (grad_p, nq)
  and, with hess_p, Hessian (nq x nq); false when p_j moves no point (or row i is a rotation's). Not collective.
@*/
PetscBool MbsBushingRowByPoint(MbsDescription desc, const MbsElement *el, PetscInt i, PetscInt j, const PetscReal q[], PetscReal *s_p, PetscReal grad_p[], PetscReal hess_p[])
{
  MbsBilinear  row = {0};
  MbsVectorMap D;
  PetscInt     nq = desc->nq;

  if (i >= 3 || !MbsGeometryDifferenceDerivative(desc, el, j, &D)) return PETSC_FALSE;
  MbsBilinearProduct(&el->row[i].a[0], &D, 1, &row);
  *s_p = MbsBilinearValue(desc, &row, q);
  for (PetscInt k = 0; k < nq; k++) grad_p[k] = 0;
  MbsBilinearAddGradient(desc, &row, q, 1, grad_p, 1);
  for (PetscInt k = 0; k < nq * nq && hess_p; k++) hess_p[k] = 0;
  if (hess_p) MbsBilinearAddHessian(desc, &row, 1, hess_p, nq);
  return PETSC_TRUE;
}

/*@C
  MbsBushingTranslationRows - Reads a bushing's points and frame (point or point_a, point_b; axes) and makes its three
  translation coordinates e_i = (R_a C e_i).(P_b - P_a) the element's rows; a_i = R_a C e_i and c_i = R_b R0^T C e_i
  for its rotation coordinates. Not collective.
@*/
PetscErrorCode MbsBushingTranslationRows(MbsYAMLReader *reader, void *node, MbsElement *el, MbsVectorMap a[3], MbsVectorMap c[3])
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      axes[9];
  PetscBool      framed;
  MbsVectorMap   d;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, el->vector));
  PetscCall(MbsYAMLReadRotation(reader, node, "axes", "bushing axes", axes, &framed));
  MbsElementPointDifference(desc, el, &d);
  for (PetscInt i = 0; i < 3; i++) {
    PetscReal e[3], ci[3];

    if (framed) MbsDescriptionLocalDirection(desc, el->body[0], axes + 3 * i, e); /* C e_i */
    else PetscCall(PetscArraycpy(e, axes + 3 * i, 3));                            /* a's own axis */
    MbsMapDirection(desc, el->body[0], e, &a[i]);
    MbsRelativeDirection(desc, el, e, ci);
    MbsMapDirection(desc, el->body[1], ci, &c[i]);
    MbsBilinearProduct(&a[i], &d, 1, MbsElementNewRow(el));
  }
  PetscFunctionReturn(0);
}

/* The three rotation coordinates x_r,i = 1/2 (a_k.c_j - a_j.c_k), (i, j, k) cyclic, as the element's next rows */
void MbsBushingRotationRows(MbsElement *el, const MbsVectorMap a[3], const MbsVectorMap c[3])
{
  const PetscInt pair[3][2] = {
    {2, 1},
    {0, 2},
    {1, 0}
  };

  for (PetscInt i = 0; i < 3; i++) {
    MbsBilinear *row = MbsElementNewRow(el);

    MbsBilinearProduct(&a[pair[i][0]], &c[pair[i][1]], 0.5, row);
    MbsBilinearProduct(&a[pair[i][1]], &c[pair[i][0]], -0.5, row);
  }
}

/* Whether a body of el turns: a rigid (or flexible) body, not a point mass or the ground */
static PetscBool RotatingBody(MbsYAMLReader *reader, const MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);

  for (PetscInt k = 0; k < 2; k++)
    if (el->body[k] != MBS_GROUND && (desc->body[el->body[k]].rigid || desc->body[el->body[k]].flexible)) return PETSC_TRUE;
  return PETSC_FALSE;
}

static PetscErrorCode BushingRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscInt     nrot_k, nrot_d;
  MbsVectorMap a[3], c[3];

  PetscFunctionBeginUser;
  PetscCall(MbsBushingTranslationRows(reader, node, el, a, c));
  PetscCall(MbsForceLawsRead(reader, node, "stiffness", PETSC_TRUE, "N", "m", PETSC_TRUE, 3, el, 0, NULL));
  PetscCall(MbsForceLawsRead(reader, node, "damping", PETSC_FALSE, "N", "m", PETSC_TRUE, 3, el, 3, NULL));
  PetscCall(MbsForceLawsRead(reader, node, "rotational_stiffness", PETSC_TRUE, "N m", "rad", PETSC_FALSE, 3, el, 6, &nrot_k));
  PetscCall(MbsForceLawsRead(reader, node, "rotational_damping", PETSC_FALSE, "N m", "rad", PETSC_FALSE, 3, el, 9, &nrot_d));
  if ((nrot_k && nrot_k != 3) || (nrot_d && nrot_d != 3)) PetscCall(MbsYAMLError(reader, node, "rotational_stiffness and rotational_damping need 3 values each"));
  if ((nrot_k || nrot_d) && !RotatingBody(reader, el))
    PetscCall(MbsYAMLError(reader, node, "rotational_stiffness and rotational_damping need a rigid body (with inertia) among the bushing's bodies: point masses and the ground do not rotate, so the rotation coordinates would be constant"));
  if (nrot_k || nrot_d) MbsBushingRotationRows(el, a, c);
  el->row_forces = PETSC_TRUE; /* MbsRowForces on its rows */
  for (PetscInt i = 0; i < 2 * el->nrow; i++)
    if (el->value[i].value < 0) PetscCall(MbsYAMLError(reader, node, "stiffness and damping must not be negative"));
  PetscFunctionReturn(0);
}

/* Its rows with a stiffness or damping, all in one MbsRowForces() call: its scratch holds 3 rows on a point mass alone
   and more than 6 on any view with a rigid body, and rotation rows need one (BushingRead()) */
static PetscErrorCode BushingForce(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  PetscInt   nq = desc->nq, batch = MbsRowForcesBatch(desc), row[6], ik[6], id[6], n = 0;
  PetscReal *grad_p = desc->work, *grad = grad_p + nq, *work = grad + batch * nq, s[6];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < el->nrow; i++) { /* k_0..2, d_0..2, k_r 0..2, d_r 0..2 */
    const MbsValue *k, *d;

    row[n] = i;
    ik[n]  = i < 3 ? i : 3 + i;
    id[n]  = i < 3 ? 3 + i : 6 + i;
    k      = &el->value[ik[n]];
    d      = &el->value[id[n]];
    if (k->param >= 0 || d->param >= 0 || k->value != 0 || d->value != 0 || MbsForceLawActive(el, ik[n]) || MbsForceLawActive(el, id[n])) n++;
  }
  PetscCheck(n <= batch, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Bushing '%s': %" PetscInt_FMT " rows exceed the %" PetscInt_FMT " its view's scratch holds", el->name, n, batch);
  MbsRowForces(desc, el, n, row, ik, id, q, v, s, grad, F, Jq, Jv, Jp, ld, work);
  for (PetscInt r = 0; r < n && Jp; r++)
    for (PetscInt g = 0; g < el->ngeometry; g++) {
      PetscInt  j = el->geometry[g].param;
      PetscReal s_p;

      if (MbsGeometryFirst(el, g) && MbsBushingRowByPoint(desc, el, row[r], j, q, &s_p, grad_p, NULL)) MbsCoordinateForceP(desc, el, ik[r], id[r], s[r], grad + r * nq, v, s_p, grad_p, Jp + j * ld);
    }
  PetscFunctionReturn(0);
}

/* Each coordinate is bilinear: its Hessian is constant (and so is its derivative by a point's coordinate) */
static PetscErrorCode BushingForceSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  PetscInt   nq   = desc->nq;
  PetscReal *grad = work, *hess = work + nq, *grad_p = hess + nq * nq, *hess_p = grad_p + nq, s_p = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < el->nrow; i++) {
    PetscBool moved = MbsBushingRowByPoint(desc, el, i, j, q, &s_p, grad_p, hess_p);

    PetscCall(PetscArrayzero(grad, nq + nq * nq));
    MbsBilinearAddGradient(desc, &el->row[i], q, 1, grad, 1);
    MbsBilinearAddHessian(desc, &el->row[i], 1, hess, nq);
    MbsCoordinateForceSecond(desc, el, i < 3 ? i : 3 + i, i < 3 ? 3 + i : 6 + i, MbsBilinearValue(desc, &el->row[i], q), moved ? s_p : 0, moved ? grad_p : NULL, grad, hess, moved ? hess_p : NULL, v, sq, sv, j, Dq, Dv, ld, hess_p + nq * nq);
  }
  PetscFunctionReturn(0);
}

static const MbsElementType Bushing = {MBS_ELEMENT_FORCE, BushingRead, BushingForce, NULL, NULL, PETSC_FALSE, NULL, NULL, BushingForceSecond, PETSC_TRUE, MbsBushingRows};

PetscErrorCode MbsElementGetType_Bushing(const MbsElementType **type)
{
  *type = &Bushing;
  return 0;
}
