-- The rating a level's solver figures predict when it is generated (docs/difficulty.md):
-- its starting rating, kept beside the level's immutable bytes. NULL for levels stored
-- before the model existed; they started at 1500.
ALTER TABLE levels ADD COLUMN prior_rating REAL;
