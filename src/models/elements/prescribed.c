/*
  Element prescribed: a body point driven along a ground axis e by a time law, a rheonomic constraint (1 row)

    Phi(q, t) = e.(P(q) - P0) - d(t) = 0,    d(t) = s(t) - s(t0)    [m]

  P0 the point at the initial pose, t0 the file's start, s the law of a force element in metres (force.c:
  harmonics sum_i A_i sin(2 pi f_i t + phi_i), a sine sweep, or scale times a recorded history), so the initial pose
  holds whatever the law's parameters. The model (model_described.c) subtracts d from the row, d' from its velocity
  row Phi_q v - d' = 0 and adds d'' to the acceleration-level row of the consistent initial state; the initial velocity
  along e becomes d'(t0) by the impulse that changes the file's velocities least in the kinetic metric. Base excitation
  on a shaker: the driven body's reaction is the multiplier of the row. Fields: body (not the ground), point (ground
  coordinates at the initial pose, default the centre of mass), axis, then the law as a force's with amplitudes [m]
  (`until` is refused: the point would jump back to P0).

  The point's coordinates and the axis's components may be parameters (geometry.c): a coordinate c of the point moves
  the ground point P0 by e_c and the body point by the body direction R0^T e_c, an axis component turns e = a/|a|, so

    dPhi/dp_j = e.(dP/dp_j(q) - e_c)      (the point)        dPhi/dp_j = de/dp_j.(P(q) - P0)      (the axis)

  both bilinear in q and zero at the initial pose: the pose stays consistent at every p, and d(t) does not move.
*/
#include "models/elements/elementimpl.h"

/* d(t) = s(t) - s(t0) and its rates (the law's); dddp (may be NULL) is set */
static PetscReal PrescribedMotion(MbsDescription desc, const MbsElement *el, PetscReal t, PetscInt order, PetscReal dddp[])
{
  PetscReal start = 0;

  for (PetscInt j = 0; j < desc->nparam && dddp; j++) dddp[j] = 0;
  if (order == 0) {
    start = MbsTimeLaw(desc, el, desc->t0, 0, dddp);
    for (PetscInt j = 0; j < desc->nparam && dddp; j++) dddp[j] = -dddp[j];
  }
  return MbsTimeLaw(desc, el, t, order, dddp) - start;
}

/* The row e.(P(q) - P0) at the element's point el->vector[0] (body coordinates) and unit axis e (the components of the
   last update), P0 the point at the initial pose */
static void PrescribedRows(MbsDescription desc, MbsElement *el)
{
  MbsVectorMap P, e;
  PetscReal    axis[3], de[3], P0[3];

  MbsJointAxisUnit(el, -1, axis, de);
  MbsMapPoint(desc, el->body[0], el->vector[0], &P);
  MbsMapConstant(axis, &e);
  el->nrow = 0;
  MbsBilinearProduct(&e, &P, 1, MbsElementNewRow(el));
  MbsMapInitial(desc, &P, P0);
  el->row[0].c = -(axis[0] * P0[0] + axis[1] * P0[1] + axis[2] * P0[2]);
}

/* dPhi/dp_j: de.(P(q) - P0) for an axis component, e.(dP/dp_j(q) - dP0/dp_j) for a coordinate of the point */
static PetscBool PrescribedRowP(MbsDescription desc, const MbsElement *el, PetscInt i, PetscInt j, MbsBilinear *drow)
{
  PetscReal    e[3], de[3], x0[3];
  MbsVectorMap a, b;

  drow->nproduct = 0;
  drow->c        = 0;
  MbsJointAxisUnit(el, j, e, de);
  if (MbsJointAxisParameter(el, j)) {
    MbsMapConstant(de, &a);
    MbsMapPoint(desc, el->body[0], el->vector[0], &b);
  } else if (MbsGeometryPointDerivative(desc, el, 0, j, &b)) MbsMapConstant(e, &a);
  else return PETSC_FALSE;
  MbsBilinearProduct(&a, &b, 1, drow);
  MbsMapInitial(desc, &b, x0);
  drow->c = -(a.k[0] * x0[0] + a.k[1] * x0[1] + a.k[2] * x0[2]);
  return PETSC_TRUE;
}

static PetscErrorCode PrescribedRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a prescribed motion of the ground moves nothing; name a body"));
  PetscCall(MbsYAMLReadWorldPoint(reader, node, el->body[0], el->vector[0]));
  PetscCall(MbsYAMLReadAxis(reader, node, "axis", el, el->vector[1]));
  if (MbsYAMLHasField(reader, node, "until")) PetscCall(MbsYAMLError(reader, node, "a prescribed motion takes no until: its point would jump back to the initial position there"));
  if (!MbsYAMLHasField(reader, node, "amplitudes") && !MbsYAMLHasField(reader, node, "sweep") && !MbsYAMLHasField(reader, node, "history"))
    PetscCall(MbsYAMLError(reader, node, "a prescribed motion needs a law: amplitudes and frequencies, a sweep, or a history"));
  PetscCall(MbsTimeLawRead(reader, node, "m", el));
  PrescribedRows(MbsYAMLReaderDescription(reader), el);
  el->motion = PrescribedMotion;
  if (el->ngeometry || el->naxis) el->row_p = PrescribedRowP;
  if (el->naxis) el->axis_row[0] = MBS_AXIS_GROUND; /* not affine in its axis: the row's pattern every coordinate */
  PetscFunctionReturn(0);
}

static const MbsElementType Prescribed = {MBS_ELEMENT_CONSTRAINT, PrescribedRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_TRUE, PrescribedRows};

PetscErrorCode MbsElementGetType_Prescribed(const MbsElementType **type)
{
  *type = &Prescribed;
  return 0;
}
