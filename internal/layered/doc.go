// Package layered lays out a directed graph in layers, left to right, as
// Graphviz dot does (the Sugiyama method), in pure Go with no start-up
// cost: nothing runs before Do is called, nothing is written anywhere.
//
// Do takes boxes (nodes of given sizes) and edges (each with an
// optional label of a given size) and returns every box's centre, every
// edge's route as a smooth cubic Bézier path with the tip of its arrow,
// and every label's centre. The steps, each deterministic (same graph and
// options, same numbers):
//
//  1. Cycle removal: a depth-first search from the First nodes, then the
//     nodes with no incoming edge, then the rest, each node's out-edges
//     heaviest first (ties in edge order), reverses the edges it finds
//     going back to a node still on its stack (a feedback arc set).
//     Self-loops are set aside (step 7); edges into a First node or out of
//     a Last node are reversed too.
//  2. Layer assignment: longest path from the roots; then a node with at
//     least as many edges out as in moves right next to its nearest
//     successor; Last nodes go to the last layer. Every rank is then
//     doubled: each edge spans at least two layers, so that its label has
//     a layer of its own in the middle, as dot does.
//  3. Long edges are split by dummy nodes, one per layer crossed; an
//     edge's label is the dummy of its middle layer, with the label's size
//     (so a label never overlaps a box or another label).
//  4. Crossing minimisation: Options.Iterations sweeps, alternately down
//     and up, each ordering a layer by the barycentre of its neighbours in
//     the layer swept from, then swapping adjacent nodes while that lowers
//     the crossings (transposition); the order with the fewest crossings
//     (counted exactly, by inversions) is kept.
//  5. Coordinates: each layer's nodes are placed in their order, at least
//     Options.NodeGap apart, as close as possible (least squares, by
//     isotonic regression) to the mean of their neighbours' positions;
//     sweeps down and up, dummies weighted above boxes so long edges run
//     straight. Layers are Options.LayerGap apart.
//  6. Routes: an edge leaves its box's right side and enters its target's
//     left side at ports spread along the side in the order of the other
//     ends, runs straight through every layer it crosses (over its label)
//     and bends only between layers, as a cubic curve with horizontal
//     tangents. A reversed edge is drawn in its own direction: from its
//     source's left side back to its target's right side, the arrow at the
//     target.
//  7. A self-loop is drawn as a loop over the top of its box, its label
//     above the loop; the box's layer reserves the room.
package layered
