/*
  Element revolute: a spherical joint whose bodies also keep a common axis, (R_a n1).(R_b z_b) = 0 and
  (R_a n2).(R_b z_b) = 0, where z_a, z_b are the axis in the body axes of a and b and n1, n2 are perpendicular to z_a
  (5 rows; the two axis rows are bilinear in q). Fields: bodies: [a, b], point or point_a and point_b, axis (ground
  coordinates at the initial pose).
*/
#include "models/elements/elementimpl.h"

/* The two rows (R_a n_k).(R_b z_b) = 0 that keep the axis (ground coordinates at the initial pose) common to a and b */
void MbsJointAxisRows(MbsDescription desc, MbsElement *el, const PetscReal axis[3])
{
  PetscReal    za[3], zb[3], n[2][3];
  MbsVectorMap direction_b;

  MbsDescriptionLocalDirection(desc, el->body[0], axis, za);
  MbsDescriptionLocalDirection(desc, el->body[1], axis, zb);
  MbsPerpendicular(za, n[0], n[1]);
  MbsMapDirection(desc, el->body[1], zb, &direction_b);
  for (PetscInt i = 0; i < 2; i++) {
    MbsVectorMap normal_a;

    MbsMapDirection(desc, el->body[0], n[i], &normal_a);
    el->axis_row[el->nrow] = i ? MBS_AXIS_COMMON_2 : MBS_AXIS_COMMON_1;
    MbsBilinearProduct(&normal_a, &direction_b, 1, MbsElementNewRow(el));
  }
}

static PetscErrorCode RevoluteRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      axis[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointAxis(reader, node, el, el->vector, axis));
  MbsJointPointRows(desc, el);
  MbsJointAxisRows(desc, el, axis);
  PetscFunctionReturn(0);
}

static const MbsElementType Revolute = {MBS_ELEMENT_CONSTRAINT, RevoluteRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_TRUE, MbsJointPointsMoved};

PetscErrorCode MbsElementGetType_Revolute(const MbsElementType **type)
{
  *type = &Revolute;
  return 0;
}
