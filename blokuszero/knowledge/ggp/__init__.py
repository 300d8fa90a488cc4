"""GDL games' learned knowledge: the softmax playout policy's gradients (:mod:`.softmax_gradients`)."""
