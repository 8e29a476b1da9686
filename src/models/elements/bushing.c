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

  Frame parameters. An entry of axes may be a parameter p_j (unit 1): at other values than the file's the nine
  entries A(p) are no rotation, and the frame is their polar factor R (rotation.c), rebuilt with the rows at every
  update (MbsBushingRows(), refused where A(p) is no right-handed frame). Its rows are the axes C e_i, and
  dR/dp_j (MbsPolarRotationDerivative(), dA/dp_j = 1 at the entries that are p_j) gives da_i, dc_i, the same maps of
  the axes' derivatives; each coordinate is linear in each of a, c and P_b - P_a, so its derivative is the coordinate
  with da in place of a plus the one with dc in place of c (Coordinate()), again bilinear in q, and enters the force,
  the Maxwell rows, the sensors and the second derivatives exactly as a point's e_i,p does (MbsBushingRowP()).
*/
#include "models/elements/elementimpl.h"

/* The frame's axis (ground coordinates at the initial pose) as body a's direction map a = R_a R_a0^T axis and body
   b's c = R_b R_b0^T axis: a_i and c_i of the header for axis C e_i, both linear in axis */
static void FrameMaps(MbsDescription desc, const MbsElement *el, const PetscReal axis[3], MbsVectorMap *a, MbsVectorMap *c)
{
  PetscReal e[3], ci[3];

  MbsDescriptionLocalDirection(desc, el->body[0], axis, e);
  MbsMapDirection(desc, el->body[0], e, a);
  MbsRelativeDirection(desc, el, e, ci);
  MbsMapDirection(desc, el->body[1], ci, c);
}

/* Appends the bushing's coordinate k to row: a_k.d (k < 3, d = P_b - P_a) or x_r,i = 1/2 (a_l.c_m - a_m.c_l), (i, m, l)
   cyclic (k = 3 + i); each is linear in each of a, c and d, so with one of them replaced by its derivative it is that
   part of the coordinate's derivative */
static void Coordinate(PetscInt k, const MbsVectorMap a[3], const MbsVectorMap c[3], const MbsVectorMap *d, MbsBilinear *row)
{
  const PetscInt pair[3][2] = {
    {2, 1},
    {0, 2},
    {1, 0}
  };

  if (k < 3) {
    MbsBilinearProduct(&a[k], d, 1, row);
    return;
  }
  MbsBilinearProduct(&a[pair[k - 3][0]], &c[pair[k - 3][1]], 0.5, row);
  MbsBilinearProduct(&a[pair[k - 3][1]], &c[pair[k - 3][0]], -0.5, row);
}

/*@C
  MbsBushingRows - A bushing's rows at its points' current place el->vector and its axes' entries el->frame_A at the
  last update (geometry.c): its translation rows a_i.(P_b - P_a) (a bushing_force sensor's one) and, when its axes hold
  parameters, its rotation rows too, at the polar factor R of the entries (rotation.c) into el->frame_R, S = R^T A into
  el->frame_S. Where A is no right-handed frame el->frame_ok is false and the rows are kept: the model refuses to solve
  with them (model_described.c). Not collective.
@*/
void MbsBushingRows(MbsDescription desc, MbsElement *el)
{
  MbsVectorMap d, a[3], c[3];

  MbsElementPointDifference(desc, el, &d);
  if (!el->nframe) {
    for (PetscInt i = 0; i < el->nrow && el->frame_first + i < 3; i++) el->row[i].b[0] = d;
    return;
  }
  el->frame_ok = MbsPolarRotation(el->frame_A, el->frame_R, el->frame_S);
  if (!el->frame_ok) return;
  for (PetscInt i = 0; i < 3; i++) FrameMaps(desc, el, el->frame_R + 3 * i, &a[i], &c[i]);
  for (PetscInt r = 0; r < el->nrow; r++) {
    el->row[r] = (MbsBilinear){0};
    Coordinate(el->frame_first + r, a, c, &d, &el->row[r]);
  }
}

/* dR/dp_j of the frame at the last update (its rows the axes' derivatives), dA/dp_j being 1 at each entry that is p_j;
   false when p_j is no entry */
static PetscBool FrameDerivative(const MbsElement *el, PetscInt j, PetscReal dR[9])
{
  PetscReal dA[9];
  PetscBool found = PETSC_FALSE;

  for (PetscInt k = 0; k < 9; k++) {
    dA[k] = (PetscReal)(j >= 0 && el->frame[k].param == j);
    found = (PetscBool)(found || dA[k] != 0);
  }
  if (found) MbsPolarRotationDerivative(el->frame_R, el->frame_S, dA, dR);
  return found;
}

/*@C
  MbsBushingParameters - The parameters among el's point coordinates (geometry.c) and frame entries, each once, into
  list (MBS_MAX_BUSHING_PARAM); their number. Not collective.
@*/
PetscInt MbsBushingParameters(const MbsElement *el, PetscInt list[])
{
  PetscInt n = 0;

  for (PetscInt i = 0; i < el->ngeometry + 9; i++) {
    PetscInt j = i < el->ngeometry ? el->geometry[i].param : el->nframe ? el->frame[i - el->ngeometry].param : -1, k = 0;

    while (k < n && list[k] != j) k++;
    if (j >= 0 && k == n) list[n++] = j;
  }
  return n;
}

/*@C
  MbsBushingRowP - ds/dp_j of el's row r, the bushing coordinate s = el->frame_first + r: its value, gradient (grad_p,
  nq) and, with hess_p, Hessian (nq x nq); false when p_j moves neither its points nor its frame. A point's p_j gives
  a_k.D (D = d(P_b - P_a)/dp_j, translations only), a frame entry the coordinate with da_i, dc_i, the maps of the axes'
  derivatives dR/dp_j, in place of a_i and c_i (Coordinate()): both bilinear in q. Not collective.
@*/
PetscBool MbsBushingRowP(MbsDescription desc, const MbsElement *el, PetscInt r, PetscInt j, const PetscReal q[], PetscReal *s_p, PetscReal grad_p[], PetscReal hess_p[])
{
  MbsBilinear  row[2] = {{0}, {0}};
  MbsVectorMap D, d, a[3], c[3], da[3], dc[3];
  PetscInt     k = el->frame_first + r, nq = desc->nq;
  PetscReal    dR[9];
  PetscBool    point = (PetscBool)(k < 3 && MbsGeometryDifferenceDerivative(desc, el, j, &D)), frame = (PetscBool)(el->nframe && FrameDerivative(el, j, dR));

  if (!point && !frame) return PETSC_FALSE;
  if (!frame) MbsBilinearProduct(&el->row[r].a[0], &D, 1, &row[0]);
  else {
    MbsElementPointDifference(desc, el, &d);
    for (PetscInt i = 0; i < 3; i++) {
      FrameMaps(desc, el, el->frame_R + 3 * i, &a[i], &c[i]);
      FrameMaps(desc, el, dR + 3 * i, &da[i], &dc[i]);
    }
    Coordinate(k, da, c, &d, &row[0]);
    if (point || k >= 3) Coordinate(k, a, dc, &D, &row[1]);
  }
  *s_p = 0;
  for (PetscInt i = 0; i < nq; i++) grad_p[i] = 0;
  for (PetscInt i = 0; i < nq * nq && hess_p; i++) hess_p[i] = 0;
  for (PetscInt m = 0; m < 2; m++) {
    *s_p += MbsBilinearAddGradient(desc, &row[m], q, 1, grad_p, 1);
    if (hess_p) MbsBilinearAddHessian(desc, &row[m], 1, hess_p, nq);
  }
  return PETSC_TRUE;
}

/*@C
  MbsBushingTranslationRows - Reads a bushing's points and frame (point or point_a, point_b; axes, whose entries may be
  parameters) and makes its three translation coordinates e_i = (R_a C e_i).(P_b - P_a) the element's rows; a_i =
  R_a C e_i and c_i = R_b R0^T C e_i for its rotation coordinates. Not collective.
@*/
PetscErrorCode MbsBushingTranslationRows(MbsYAMLReader *reader, void *node, MbsElement *el, MbsVectorMap a[3], MbsVectorMap c[3])
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      axes[9];
  PetscBool      framed;
  MbsVectorMap   d;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, el->vector));
  PetscCall(MbsYAMLReadRotationValues(reader, node, "axes", "bushing axes", el->frame, axes, &framed));
  el->frame_ok = PETSC_TRUE;
  for (PetscInt k = 0; k < 9; k++) el->nframe += el->frame[k].param >= 0;
  if (el->nframe) { /* the rows read the polar factor at every p, at the file's values too (there A to 1e-10) */
    PetscCall(PetscArraycpy(el->frame_A, axes, 9));
    PetscCheck(MbsPolarRotation(axes, el->frame_R, el->frame_S), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The file's axes of '%s' passed as a rotation but have no polar factor", el->name);
    PetscCall(PetscArraycpy(axes, el->frame_R, 9));
  }
  MbsElementPointDifference(desc, el, &d);
  for (PetscInt i = 0; i < 3; i++) {
    PetscReal ci[3];

    if (framed) FrameMaps(desc, el, axes + 3 * i, &a[i], &c[i]);
    else {
      MbsMapDirection(desc, el->body[0], axes + 3 * i, &a[i]); /* a's own axes */
      MbsRelativeDirection(desc, el, axes + 3 * i, ci);
      MbsMapDirection(desc, el->body[1], ci, &c[i]);
    }
    Coordinate(i, a, c, &d, MbsElementNewRow(el));
  }
  PetscFunctionReturn(0);
}

/* The three rotation coordinates x_r,i = 1/2 (a_k.c_j - a_j.c_k), (i, j, k) cyclic, as the element's next rows */
void MbsBushingRotationRows(MbsElement *el, const MbsVectorMap a[3], const MbsVectorMap c[3])
{
  for (PetscInt i = 3; i < 6; i++) Coordinate(i, a, c, NULL, MbsElementNewRow(el));
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
  PetscInt   nq = desc->nq, batch = MbsRowForcesBatch(desc), row[6], ik[6], id[6], n = 0, param[MBS_MAX_BUSHING_PARAM], nparam;
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
  nparam = Jp ? MbsBushingParameters(el, param) : 0;
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt k = 0; k < nparam; k++) {
      PetscInt  j = param[k];
      PetscReal s_p;

      if (MbsBushingRowP(desc, el, row[r], j, q, &s_p, grad_p, NULL)) MbsCoordinateForceP(desc, el, ik[r], id[r], s[r], grad + r * nq, v, s_p, grad_p, Jp + j * ld);
    }
  PetscFunctionReturn(0);
}

/* Each coordinate is bilinear: its Hessian is constant (and so is its derivative by a point's coordinate or a frame's
   entry) */
static PetscErrorCode BushingForceSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  PetscInt   nq   = desc->nq;
  PetscReal *grad = work, *hess = work + nq, *grad_p = hess + nq * nq, *hess_p = grad_p + nq, s_p = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < el->nrow; i++) {
    PetscBool moved = MbsBushingRowP(desc, el, i, j, q, &s_p, grad_p, hess_p);

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
