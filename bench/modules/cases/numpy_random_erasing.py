import numpy as np
import torch


class RandomErasing:
    """Random erasing on a batch; the box is drawn with numpy inside the transform."""

    def __init__(self, probability=0.5, sl=0.02, sh=0.3, value=0.0):
        self.probability = probability
        self.sl, self.sh = sl, sh
        self.value = value

    def __call__(self, img):
        if np.random.uniform(0, 1) > self.probability:
            return img
        _, h, w = img.shape[-3:]
        area = h * w
        target_area = np.random.uniform(self.sl, self.sh) * area
        eh = int(np.sqrt(target_area))
        ew = min(w, eh)
        top = np.random.randint(0, h - eh + 1)
        left = np.random.randint(0, w - ew + 1)
        img = img.clone()
        img[..., top:top + eh, left:left + ew] = self.value
        return img


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    erase = torch.compile(RandomErasing(probability=1.0).__call__)
    batch = torch.rand(2, 3, 12, 12)
    return erase(batch)


if __name__ == "__main__":
    main()
