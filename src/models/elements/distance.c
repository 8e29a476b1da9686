/*
  Element distance: a massless rod of length L between a point of body a and a point of body b,
  (P_b - P_a).(P_b - P_a) - L^2 = 0 (1 row). Fields: bodies: [a, b], point_a, point_b (body coordinates), length [m]
  (default: the distance at the initial pose; it must not be zero).
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode DistanceRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      local[2][3], x[3], length, initial;
  PetscBool      set;
  MbsVectorMap   pa, pb, d;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, local));
  MbsMapPoint(desc, el->body[0], local[0], &pa);
  MbsMapPoint(desc, el->body[1], local[1], &pb);
  MbsMapDifference(&pb, &pa, &d);
  MbsBilinearProduct(&d, &d, 1, MbsElementNewRow(el));
  MbsMapInitial(desc, &d, x);
  initial = PetscSqrtReal(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  PetscCall(MbsYAMLReadNumber(reader, node, "length", &length, &set));
  if (!set) length = initial;
  if (!(length > 0)) PetscCall(MbsYAMLError(reader, node, "a distance joint needs a positive length (its points coincide at the initial pose)"));
  el->row[0].c = -length * length;
  PetscFunctionReturn(0);
}

static const MbsElementType Distance = {MBS_ELEMENT_CONSTRAINT, DistanceRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_FALSE, NULL};

PetscErrorCode MbsElementGetType_Distance(const MbsElementType **type)
{
  *type = &Distance;
  return 0;
}
