print("blerig")
