/*
  Element relative_displacement: sensor y = e.(P_b - P_a) - y0 [m], the displacement of a point of body b relative to a
  point of body a along an axis e, zero at the initial pose (y0 its value there). e is fixed in the ground (frame:
  ground, the default) or turns with a (frame: body, e = R_a e_a). Either way y is one bilinear scalar
  e(q).(P_b(q) - P_a(q)) - y0 (elementimpl.h), so dy/dq is its gradient, exact; dy/dv = 0. With frame: body it is the
  bushing's translation coordinate e_i when e is the bushing's axis i: what a displacement transducer across a mount
  reads. The relative rotation of two bodies about an axis is the angle sensor with a reference body (angle.c).
  Fields: bodies: [a, b], point (ground coordinates at the initial pose, the same point of both) or point_a and point_b
  (body coordinates), axis (ground coordinates at the initial pose), frame: ground or body.

  A coordinate of its points may be a parameter p_j (geometry.c): y stays zero at the initial pose, so with G =
  d(P_b - P_a)/dp_j (linear in q), dy/dp_j = e(q).G(q) - e(q0).G(q0). So may a component of its axis (e = a/|a|,
  geometry.c): with E = de/dp_j (turning with a for frame: body), dy/dp_j = E(q).(P_b - P_a)(q) - E(q0).(P_b - P_a)(q0).
*/
#include "models/elements/elementimpl.h"

/* e(q0).(P_b - P_a)(q0) */
static PetscReal InitialValue(MbsDescription desc, const MbsVectorMap *e, const MbsVectorMap *d)
{
  PetscReal e0[3], d0[3];

  MbsMapInitial(desc, e, e0);
  MbsMapInitial(desc, d, d0);
  return e0[0] * d0[0] + e0[1] * d0[1] + e0[2] * d0[2];
}

/* The map of a ground direction of the sensor: fixed in the ground, or turning with body a (frame: body) */
static void AxisMap(MbsDescription desc, const MbsElement *el, const PetscReal ground[3], MbsVectorMap *e)
{
  PetscReal local[3];

  if (!el->turning) {
    MbsMapConstant(ground, e);
    return;
  }
  MbsDescriptionLocalDirection(desc, el->body[0], ground, local);
  MbsMapDirection(desc, el->body[0], local, e);
}

/* Its row e.(P_b - P_a) - y0 at its points el->vector and its axis (read, and again when they move: geometry.c) */
static void RelativeDisplacementRows(MbsDescription desc, MbsElement *el)
{
  MbsVectorMap d;
  MbsBilinear *row = &el->row[0];
  PetscReal    e[3], de[3];

  MbsJointAxisUnit(el, -1, e, de);
  AxisMap(desc, el, e, &row->a[0]);
  MbsElementPointDifference(desc, el, &d);
  row->b[0] = d;
  row->c    = -InitialValue(desc, &row->a[0], &d);
}

static PetscErrorCode RelativeDisplacementRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      axis[3];
  MbsVectorMap   e = {0};

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, el->vector));
  PetscCall(MbsYAMLReadAxis(reader, node, "axis", el, axis));
  PetscCall(MbsSensorReadFrame(reader, node, el->body[0], axis, &el->turning));
  MbsBilinearProduct(&e, &e, 1, MbsElementNewRow(el)); /* its factors are set by RelativeDisplacementRows */
  RelativeDisplacementRows(desc, el);
  PetscFunctionReturn(0);
}

static PetscErrorCode RelativeDisplacementSensorP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal dydp[])
{
  const MbsVectorMap *e = &el->row[0].a[0];
  PetscReal           eq[3], axis[3], de[3];

  PetscFunctionBeginUser;
  MbsMapEval(desc, e, q, PETSC_TRUE, eq);
  for (PetscInt c = 0; c < 3 && el->naxis; c++) { /* an axis component, each once */
    PetscInt     j  = MbsJointAxisFirst(el, c);
    MbsBilinear  dy = {0};
    MbsVectorMap E;

    if (j < 0) continue;
    MbsJointAxisUnit(el, j, axis, de);
    AxisMap(desc, el, de, &E);
    MbsBilinearProduct(&E, &el->row[0].b[0], 1, &dy);
    dydp[j] += MbsBilinearValue(desc, &dy, q) - InitialValue(desc, &E, &el->row[0].b[0]);
  }
  for (PetscInt n = 0; n < el->ngeometry; n++) {
    PetscInt     j = el->geometry[n].param;
    MbsVectorMap G;
    PetscReal    g[3];

    if (!MbsGeometryFirst(el, n)) continue;
    MbsGeometryDifferenceDerivative(desc, el, j, &G);
    MbsMapEval(desc, &G, q, PETSC_TRUE, g);
    dydp[j] += eq[0] * g[0] + eq[1] * g[1] + eq[2] * g[2] - InitialValue(desc, e, &G);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode RelativeDisplacementSensor(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal *y, PetscReal dydq[], PetscReal dydv[], PetscReal dyda[])
{
  PetscFunctionBeginUser;
  *y = MbsBilinearValue(desc, &el->row[0], q);
  if (dydq) MbsBilinearAddGradient(desc, &el->row[0], q, 1, dydq, 1);
  PetscFunctionReturn(0);
}

static const MbsElementType RelativeDisplacement = {MBS_ELEMENT_SENSOR, RelativeDisplacementRead, NULL, RelativeDisplacementSensor, "m", PETSC_FALSE, NULL, RelativeDisplacementSensorP, NULL, PETSC_TRUE, RelativeDisplacementRows};

PetscErrorCode MbsElementGetType_RelativeDisplacement(const MbsElementType **type)
{
  *type = &RelativeDisplacement;
  return 0;
}
