/*
  Element prismatic: body b slides along an axis of body a without turning relative to it: the point of b stays on the
  line of a (2 rows, point_on_line.c) and b keeps its initial orientation relative to a (3 rows, fixed.c). Fields:
  bodies: [a, b], point (or point_a, point_b), axis (ground coordinates at the initial pose).
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode PrismaticRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      axis[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointAxis(reader, node, el, el->vector, axis));
  MbsJointLineRows(desc, el, axis);
  MbsJointRotationRows(desc, el);
  PetscFunctionReturn(0);
}

static const MbsElementType Prismatic = {MBS_ELEMENT_CONSTRAINT, PrismaticRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_TRUE, MbsJointPointsMoved};

PetscErrorCode MbsElementGetType_Prismatic(const MbsElementType **type)
{
  *type = &Prismatic;
  return 0;
}
