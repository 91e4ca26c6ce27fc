"""BD-HazardVLM, builder side: reconstruction of the images from a manifest (`reconstruct`, never
redistributed), the annotations publisher and its card template, and the demo steps. Its eval side is
`eval_kit/bd_hazardvlm/`.
"""
