/*
  Element relative_displacement: sensor y = e.(P_b - P_a) - y0 [m], the displacement of a point of body b relative to a
  point of body a along an axis e, zero at the initial pose (y0 its value there). e is fixed in the ground (frame:
  ground, the default) or turns with a (frame: body, e = R_a e_a). Either way y is one bilinear scalar
  e(q).(P_b(q) - P_a(q)) - y0 (elementimpl.h), so dy/dq is its gradient, exact; dy/dv = 0. With frame: body it is the
  bushing's translation coordinate e_i when e is the bushing's axis i: what a displacement transducer across a mount
  reads. The relative rotation of two bodies about an axis is the angle sensor with a reference body (angle.c).
  Fields: bodies: [a, b], point (ground coordinates at the initial pose, the same point of both) or point_a and point_b
  (body coordinates), axis (ground coordinates at the initial pose), frame: ground or body.
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode RelativeDisplacementRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      local[2][3], axis[3], e0[3], d0[3];
  MbsVectorMap   pa, pb, d, e;
  MbsBilinear   *row;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, local));
  PetscCall(MbsYAMLReadUnitVector(reader, node, "axis", axis));
  PetscCall(MbsSensorReadFrame(reader, node, el->body[0], axis, &el->turning));
  MbsMapPoint(desc, el->body[0], local[0], &pa);
  MbsMapPoint(desc, el->body[1], local[1], &pb);
  MbsMapDifference(&pb, &pa, &d);
  if (el->turning) MbsMapDirection(desc, el->body[0], axis, &e);
  else MbsMapConstant(axis, &e);
  row = MbsElementNewRow(el);
  MbsBilinearProduct(&e, &d, 1, row);
  MbsMapInitial(desc, &e, e0);
  MbsMapInitial(desc, &d, d0);
  row->c = -(e0[0] * d0[0] + e0[1] * d0[1] + e0[2] * d0[2]);
  PetscFunctionReturn(0);
}

static PetscErrorCode RelativeDisplacementSensor(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal *y, PetscReal dydq[], PetscReal dydv[], PetscReal dyda[])
{
  PetscFunctionBeginUser;
  *y = MbsBilinearValue(desc, &el->row[0], q);
  if (dydq) MbsBilinearAddGradient(desc, &el->row[0], q, 1, dydq, 1);
  PetscFunctionReturn(0);
}

static const MbsElementType RelativeDisplacement = {MBS_ELEMENT_SENSOR, RelativeDisplacementRead, NULL, RelativeDisplacementSensor, "m", PETSC_FALSE, NULL, NULL, NULL, PETSC_FALSE, NULL};

PetscErrorCode MbsElementGetType_RelativeDisplacement(const MbsElementType **type)
{
  *type = &RelativeDisplacement;
  return 0;
}
