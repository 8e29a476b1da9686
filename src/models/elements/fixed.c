/*
  Element fixed: body b keeps its initial position and orientation relative to body a. With R0 = R_a0^T R_b0 the
  initial relative rotation and a_i = R_a e_i, c_j = R_b R0^T e_j (equal to a_j while the joint holds), the rows are
  the points' coincidence and a_2.c_3 = a_3.c_1 = a_1.c_2 = 0 (6 rows, the last three bilinear). Fields: bodies: [a, b],
  point or point_a and point_b.
*/
#include "models/elements/elementimpl.h"

/* The body-b axes of the direction e of body a at the initial pose, R_b0^T R_a0 e */
void MbsRelativeDirection(MbsDescription desc, const MbsElement *el, const PetscReal e[3], PetscReal local_b[3])
{
  PetscReal world[3] = {e[0], e[1], e[2]};

  if (el->body[0] != MBS_GROUND && desc->body[el->body[0]].rigid) {
    const PetscReal *R = desc->body[el->body[0]].R0;

    for (PetscInt k = 0; k < 3; k++) world[k] = R[k] * e[0] + R[3 + k] * e[1] + R[6 + k] * e[2];
  }
  MbsDescriptionLocalDirection(desc, el->body[1], world, local_b);
}

/* The three rows a_2.c_3 = a_3.c_1 = a_1.c_2 = 0 that keep the initial orientation of b relative to a */
void MbsJointRotationRows(MbsDescription desc, MbsElement *el)
{
  const PetscInt pair[3][2] = {
    {1, 2},
    {2, 0},
    {0, 1}
  };

  for (PetscInt r = 0; r < 3; r++) {
    PetscReal    ei[3] = {0, 0, 0}, ej[3] = {0, 0, 0}, cj[3];
    MbsVectorMap a, c;

    ei[pair[r][0]] = 1;
    ej[pair[r][1]] = 1;
    MbsRelativeDirection(desc, el, ej, cj);
    MbsMapDirection(desc, el->body[0], ei, &a);
    MbsMapDirection(desc, el->body[1], cj, &c);
    MbsBilinearProduct(&a, &c, 1, MbsElementNewRow(el));
  }
}

static PetscErrorCode FixedRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, el->vector));
  MbsJointPointRows(desc, el);
  MbsJointRotationRows(desc, el);
  PetscFunctionReturn(0);
}

static const MbsElementType Fixed = {MBS_ELEMENT_CONSTRAINT, FixedRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_TRUE, MbsJointPointsMoved};

PetscErrorCode MbsElementGetType_Fixed(const MbsElementType **type)
{
  *type = &Fixed;
  return 0;
}
