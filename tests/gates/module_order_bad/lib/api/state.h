// The state header the self-test tree's composition root may include.
