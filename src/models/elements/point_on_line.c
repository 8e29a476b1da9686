/*
  Element point_on_line: a point of body b stays on a line fixed in body a, (R_a n_k).(P_b - P_a) = 0 for the two
  normals n_1, n_2 of the line's direction (2 rows; linear in q when a is the ground or a point mass). A point mass on
  such a joint to the ground moves along one axis. Fields: bodies: [a, b], axis (ground coordinates at the initial
  pose), point (ground coordinates at the initial pose, on the line) or point_a (on the line) and point_b.
*/
#include "models/elements/elementimpl.h"

/* The two rows (R_a n_k).(P_b - P_a) = 0 that keep the point of b on the line of a through P_a along axis */
void MbsJointLineRows(MbsDescription desc, MbsElement *el, const PetscReal local[2][3], const PetscReal axis[3])
{
  PetscReal    da[3], n[2][3];
  MbsVectorMap pa, pb, d;

  MbsDescriptionLocalDirection(desc, el->body[0], axis, da);
  MbsPerpendicular(da, n[0], n[1]);
  MbsMapPoint(desc, el->body[0], local[0], &pa);
  MbsMapPoint(desc, el->body[1], local[1], &pb);
  MbsMapDifference(&pb, &pa, &d);
  for (PetscInt i = 0; i < 2; i++) {
    MbsVectorMap normal;

    MbsMapDirection(desc, el->body[0], n[i], &normal);
    MbsBilinearProduct(&normal, &d, 1, MbsElementNewRow(el));
  }
}

static PetscErrorCode PointOnLineRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscReal local[2][3], axis[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointAxis(reader, node, el, local, axis));
  MbsJointLineRows(MbsYAMLReaderDescription(reader), el, local, axis);
  PetscFunctionReturn(0);
}

static const MbsElementType PointOnLine = {MBS_ELEMENT_CONSTRAINT, PointOnLineRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_FALSE, NULL};

PetscErrorCode MbsElementGetType_PointOnLine(const MbsElementType **type)
{
  *type = &PointOnLine;
  return 0;
}
