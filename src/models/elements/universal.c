/*
  Element universal (Cardan joint): a spherical joint whose two cross axes stay perpendicular, (R_a x_a).(R_b x_b) = 0,
  x_a fixed in a, x_b fixed in b (4 rows). Fields: bodies: [a, b], point (or point_a, point_b), axis_a, axis_b (ground
  coordinates at the initial pose, perpendicular there). Their components may be parameters (geometry.c, "Axes"): the
  cross row then reads x_a = R_a0^T e_a(p), x_b = R_b0^T e_b(p), and as e_a(p).e_b(p) is not zero away from the file's
  values, the start pose is projected onto the joints (ProjectPose in model_described.c), as for a point_a.
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode UniversalRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      axis[2][3], cross[2][3];
  MbsVectorMap   map[2];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, el->vector));
  PetscCall(MbsYAMLReadCrossAxes(reader, node, el, axis));
  MbsJointPointRows(desc, el);
  for (PetscInt i = 0; i < 2; i++) {
    MbsDescriptionLocalDirection(desc, el->body[i], axis[i], cross[i]);
    MbsMapDirection(desc, el->body[i], cross[i], &map[i]);
  }
  el->axis_row[el->nrow] = MBS_AXIS_CROSS;
  MbsBilinearProduct(&map[0], &map[1], 1, MbsElementNewRow(el));
  PetscFunctionReturn(0);
}

static const MbsElementType Universal = {MBS_ELEMENT_CONSTRAINT, UniversalRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_TRUE, MbsJointPointsMoved};

PetscErrorCode MbsElementGetType_Universal(const MbsElementType **type)
{
  *type = &Universal;
  return 0;
}
