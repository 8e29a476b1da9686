/*
  Element cylindrical: body b slides along and turns about an axis of body a: the point of b stays on the line of a
  (2 rows, point_on_line.c) and the axis stays common to both (2 rows, revolute.c). Fields: bodies: [a, b], point (or
  point_a, point_b), axis (ground coordinates at the initial pose).
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode CylindricalRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      axis[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointAxis(reader, node, el, el->vector, axis));
  MbsJointLineRows(desc, el, axis);
  MbsJointAxisRows(desc, el, axis);
  PetscFunctionReturn(0);
}

static const MbsElementType Cylindrical = {MBS_ELEMENT_CONSTRAINT, CylindricalRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_TRUE, MbsJointPointsMoved};

PetscErrorCode MbsElementGetType_Cylindrical(const MbsElementType **type)
{
  *type = &Cylindrical;
  return 0;
}
