/*
  Element point_on_line: a point of body b stays on a line fixed in body a, (R_a n_k).(P_b - P_a) = 0 for the two
  normals n_1, n_2 of the line's direction (2 rows; linear in q when a is the ground or a point mass). A point mass on
  such a joint to the ground moves along one axis. Fields: bodies: [a, b], axis (ground coordinates at the initial
  pose), point (ground coordinates at the initial pose, on the line) or point_a (on the line) and point_b.
*/
#include "models/elements/elementimpl.h"

/* The two rows (R_a n_k).(P_b - P_a) = 0 that keep the point of b on the line of a through P_a along axis */
void MbsJointLineRows(MbsDescription desc, MbsElement *el, const PetscReal axis[3])
{
  PetscReal    da[3], n[2][3];
  MbsVectorMap d;

  MbsDescriptionLocalDirection(desc, el->body[0], axis, da);
  MbsPerpendicular(da, n[0], n[1]);
  MbsElementPointDifference(desc, el, &d);
  for (PetscInt i = 0; i < 2; i++) {
    MbsVectorMap normal;

    MbsMapDirection(desc, el->body[0], n[i], &normal);
    el->axis_row[el->nrow] = i ? MBS_AXIS_LINE_2 : MBS_AXIS_LINE_1;
    MbsBilinearProduct(&normal, &d, 1, MbsElementNewRow(el));
  }
  el->npoint_row = el->nrow;
}

static PetscErrorCode PointOnLineRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscReal axis[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointAxis(reader, node, el, el->vector, axis));
  MbsJointLineRows(MbsYAMLReaderDescription(reader), el, axis);
  PetscFunctionReturn(0);
}

static const MbsElementType PointOnLine = {MBS_ELEMENT_CONSTRAINT, PointOnLineRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_TRUE, MbsJointPointsMoved};

PetscErrorCode MbsElementGetType_PointOnLine(const MbsElementType **type)
{
  *type = &PointOnLine;
  return 0;
}
