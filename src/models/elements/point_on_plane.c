/*
  Element point_on_plane: a point of body b stays on a plane fixed in body a, (R_a n).(P_b - P_a) = 0 with n the
  plane's normal in body a (1 row). Fields: bodies: [a, b], point (ground coordinates at the initial pose, on the plane)
  or point_a (on the plane) and point_b, normal (ground coordinates at the initial pose).
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode PointOnPlaneRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      normal[3], na[3];
  MbsVectorMap   d, n;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, el->vector));
  PetscCall(MbsYAMLReadAxis(reader, node, "normal", el, normal));
  MbsDescriptionLocalDirection(desc, el->body[0], normal, na);
  MbsMapDirection(desc, el->body[0], na, &n);
  MbsElementPointDifference(desc, el, &d);
  MbsBilinearProduct(&n, &d, 1, MbsElementNewRow(el));
  el->npoint_row  = 1;
  el->axis_row[0] = MBS_AXIS_NORMAL;
  PetscFunctionReturn(0);
}

static const MbsElementType PointOnPlane = {MBS_ELEMENT_CONSTRAINT, PointOnPlaneRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_TRUE, MbsJointPointsMoved};

PetscErrorCode MbsElementGetType_PointOnPlane(const MbsElementType **type)
{
  *type = &PointOnPlane;
  return 0;
}
